# expect: accepted
"""Blue-Red Hackenbush on stalks for two seats played by the same policy."""

from fractions import Fraction

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "HackenbushStalkDuel",
    "domain": "games",
    "description": (
        "Two-player Blue-Red Hackenbush on a row of stalks: Blue (player 0) cuts a blue edge, Red (player 1) a red "
        "edge; every edge above the cut falls too. A player with no edge of their colour to cut loses. Three "
        "invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {
        "stalks": {"min": 2, "max": 5, "default": 3, "description": "number of stalks"},
        "height": {"min": 2, "max": 6, "default": 4, "description": "tallest possible stalk"},
    },
    "grounding": "Hackenbush (Conway, Winning Ways): Blue-Red stalks have number values (a run of one colour from "
                 "the ground counts whole units, each later edge half the previous weight); the sign of the total "
                 "says who wins, and zero means the player to move loses.",
    "tags": ["two-player", "zero-sum", "combinatorial", "self-play"],
}

COLOURS = "BR"
NAMES = ["Blue", "Red"]
INVALID_LIMIT = 3


def stalk_value(stalk):
    """Berlekamp's rule: units for the run that starts at the ground, then halving weights."""
    if not stalk:
        return Fraction(0)
    value, i = Fraction(0), 0
    while i < len(stalk) and stalk[i] == stalk[0]:
        value = value + (1 if stalk[i] == "B" else -1)
        i = i + 1
    weight = Fraction(1, 2)
    while i < len(stalk):
        value = value + (weight if stalk[i] == "B" else -weight)
        weight = weight / 2
        i = i + 1
    return value


class HackenbushStalkDuel:
    def __init__(self, stalks=3, height=4):
        self.stalks = stalks
        self.height = height
        self.board = []
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.order = []

    def reset(self, rng, options):
        while True:
            self.board = ["".join(rng.choice(COLOURS) for _ in range(rng.randint(1, self.height)))
                          for _ in range(self.stalks)]
            joined = "".join(self.board)
            if "B" in joined and "R" in joined and len(joined) >= 4:
                break
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.order = [(s, e) for s in range(self.stalks) for e in range(self.height)]
        rng.shuffle(self.order)
        return self.observation("Game start."), {"player_id": 0, "legal_moves": self.legal_moves()}

    def cuts(self, seat):
        return [(s, e) for s in range(len(self.board)) for e in range(len(self.board[s]))
                if self.board[s][e] == COLOURS[seat]]

    def legal_moves(self):
        return [f"{s + 1} {e + 1}" for s, e in self.cuts(self.player)]

    def render(self):
        lines = []
        for s in range(len(self.board)):
            edges = " ".join(f"{e + 1}:{self.board[s][e]}" for e in range(len(self.board[s]))) or "(cut down)"
            lines.append(f"stalk {s + 1}: ground | {edges}")
        return "\n".join(lines)

    def observation(self, note):
        return (
            f"{note}\nYou are player {self.player} ({NAMES[self.player]}, you cut {COLOURS[self.player]} edges). "
            f"Stalks, edges numbered from the ground up (B = blue, R = red):\n{self.render()}\n"
            f"Reply 'STALK EDGE' to cut one of your edges; everything above it falls. A player with no edge of "
            f"their colour left to cut loses."
        )

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            self.done = True
            winner = 1 - mover
            rewards = zero_sum_rewards(winner)
            return (f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits.",
                    rewards[mover], True, False, {"player_id": mover, "success": False, "rewards": rewards,
                                                  "winner": winner, "format_error": format_error,
                                                  "action_is_valid": False})
        obs = self.observation(f"{message} ({INVALID_LIMIT - self.invalid[mover]} more invalid moves forfeit.)")
        return obs, 0.0, False, False, {"player_id": mover, "format_error": format_error, "action_is_valid": False,
                                        "legal_moves": self.legal_moves()}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": self.player, "action_is_valid": False}
        mover = self.player
        numbers = move_integers(action, 40)
        if len(numbers) != 2:
            return self.reject(mover, f"Could not read {safe_echo(action)!r}: reply 'STALK EDGE', like '2 3'.",
                               "expected two integers: stalk and edge")
        s, e = numbers[0] - 1, numbers[1] - 1
        if not (0 <= s < len(self.board) and 0 <= e < len(self.board[s])):
            return self.reject(mover, f"Stalk {s + 1} has no edge {e + 1}.", None)
        if self.board[s][e] != COLOURS[mover]:
            return self.reject(mover, f"Edge {e + 1} of stalk {s + 1} is {NAMES[1 - mover].lower()}; you may only "
                                      f"cut {NAMES[mover].lower()} edges.", None)
        self.invalid[mover] = 0
        self.board[s] = self.board[s][:e]
        if not self.cuts(1 - mover):
            self.done = True
            rewards = zero_sum_rewards(mover)
            return (f"Player {mover} cut stalk {s + 1} at edge {e + 1}. Player {1 - mover} has no "
                    f"{NAMES[1 - mover].lower()} edge left: player {mover} wins.\n{self.render()}",
                    rewards[mover], True, False, {"player_id": mover, "success": True, "rewards": rewards,
                                                  "winner": mover, "action_is_valid": True})
        self.player = 1 - mover
        obs = self.observation(f"Player {mover} cut stalk {s + 1} at edge {e + 1}.")
        return obs, 0.0, False, False, {"player_id": self.player, "legal_moves": self.legal_moves(),
                                        "action_is_valid": True}

    def total(self, board):
        return sum((stalk_value(stalk) for stalk in board), Fraction(0))

    def privileged_hint(self):
        value = self.total(self.board)
        side = "Blue" if value > 0 else ("Red" if value < 0 else "nobody (the player to move loses)")
        return (f"The position's value is {value} (positive favours Blue, negative Red): it favours {side}. Cut "
                f"the edge that leaves the total best for your colour; high edges above a colour change are worth "
                f"little.")

    def reference_action(self):
        mine = [(s, e) for s, e in self.order if s < len(self.board) and e < len(self.board[s])
                and self.board[s][e] == COLOURS[self.player]]
        if self.done or not mine:
            return "1 1"
        sign = 1 if self.player == 0 else -1

        def after(cut):
            board = list(self.board)
            board[cut[0]] = board[cut[0]][:cut[1]]
            return sign * self.total(board)

        s, e = max(mine, key=after)
        return f"{s + 1} {e + 1}"
