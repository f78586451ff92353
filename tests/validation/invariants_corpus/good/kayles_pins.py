# expect: accepted
"""Kayles for two seats played by the same policy: knock down one pin or two adjacent pins; the last move wins."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "KaylesPins",
    "domain": "games",
    "description": (
        "Two-player Kayles: a row of bowling pins with some gaps. On your turn knock down one standing pin or two "
        "standing pins that are next to each other. Whoever knocks down the last pin wins. A seat may resign; "
        "three invalid moves in a row forfeit the game."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {
        "pins": {"min": 6, "max": 24, "default": 12, "description": "pins in the row"},
        "gaps": {"min": 0, "max": 4, "default": 1,
                 "description": "pins already down at the start (splitting the row into several games)"},
    },
    "grounding": (
        "Kayles (Dudeney, 1908; solved by Guy and Smith, 1956): an impartial game whose rows are Nim heaps of "
        "their Grundy value; a position is lost for the player to move exactly when the XOR of the Grundy values "
        "of its runs of standing pins is zero."
    ),
    "tags": ["two-player", "zero-sum", "combinatorial-game", "impartial", "self-play"],
}

INVALID_LIMIT = 3
GRUNDY = [0]  # Grundy values of a run of n standing pins, extended on demand (a pure cache)


def grundy(n):
    while len(GRUNDY) <= n:
        m = len(GRUNDY)
        reach = set()
        for take in (1, 2):
            for left in range(0, m - take + 1):
                right = m - take - left
                reach.add(GRUNDY[left] ^ GRUNDY[right])
        g = 0
        while g in reach:
            g = g + 1
        GRUNDY.append(g)
    return GRUNDY[n]


class KaylesPins:
    def __init__(self, pins=12, gaps=1):
        self.n = pins
        self.gaps = gaps
        self.up = []
        self.player = 0
        self.invalid = [0, 0]
        self.order = []
        self.done = False

    def reset(self, rng, options):
        self.up = [True] * self.n
        for i in rng.sample(range(1, self.n - 1), self.gaps):
            self.up[i] = False
        self.player = rng.randint(0, 1)
        self.invalid = [0, 0]
        self.order = rng.sample(range(self.n), self.n)  # the reference's tie-break order
        self.done = False
        return self.observation("Game start."), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def moves(self):
        out = [(i,) for i in range(self.n) if self.up[i]]
        out += [(i, i + 1) for i in range(self.n - 1) if self.up[i] and self.up[i + 1]]
        return out

    def legal_moves(self):
        listed = [" ".join(str(i + 1) for i in m) for m in self.moves()]
        return listed + [f"{m[1] + 1} {m[0] + 1}" for m in self.moves() if len(m) == 2]  # a pair in either order

    def render(self):
        return " ".join(f"{i + 1}:{'I' if self.up[i] else '_'}" for i in range(self.n))

    def observation(self, note):
        return (
            f"{note}\nYou are player {self.player}. Pins (I standing, _ down):\n{self.render()}\n"
            f"Reply with one standing pin number ('5') or two adjacent standing pins ('5 6'), or 'resign'. "
            f"Whoever knocks down the last pin wins."
        )

    def parse(self, action):
        tokens = move_tokens(action, 40)
        if tokens == ["resign"]:
            return "resign"
        numbers = [t for t in tokens if t.isdigit()]
        if not numbers or len(numbers) != len(tokens) or len(numbers) > 2:
            return None
        return tuple(sorted(int(t) - 1 for t in numbers))

    def finish(self, mover, winner, text):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner}
        return text, rewards[mover], True, False, info

    def step(self, action):
        if self.done:
            raise RuntimeError("game over; call reset")
        mover = self.player
        move = self.parse(action)
        if move == "resign":
            return self.finish(mover, 1 - mover, f"Player {mover} resigns. Player {1 - mover} wins.")
        if move is None or move not in self.moves():
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= INVALID_LIMIT:
                return self.finish(mover, 1 - mover, f"Player {mover} made {INVALID_LIMIT} invalid moves in a row "
                                                     f"and forfeits. Player {1 - mover} wins.")
            error = "expected one pin number or two adjacent pin numbers" if move is None else None
            note = (f"Invalid move {safe_echo(action)!r}." if move is None else
                    "That is not a standing pin or a pair of adjacent standing pins.")
            left = INVALID_LIMIT - self.invalid[mover]
            return self.observation(f"{note} ({left} more invalid moves forfeit.)"), 0.0, False, False, {
                "player_id": mover, "format_error": error, "action_is_valid": False,
                "legal_moves": self.legal_moves()}
        self.invalid[mover] = 0
        for i in move:
            self.up[i] = False
        knocked = " and ".join(str(i + 1) for i in move)
        if not any(self.up):
            return self.finish(mover, mover, f"Player {mover} knocked down {knocked}, the last pin(s). "
                                             f"Player {mover} wins.")
        self.player = 1 - mover
        return self.observation(f"Player {mover} knocked down {knocked}."), 0.0, False, False, {
            "player_id": self.player, "legal_moves": self.legal_moves()}

    def runs(self, up):
        out, count = [], 0
        for pin in up + [False]:
            if pin:
                count = count + 1
            elif count:
                out.append(count)
                count = 0
        return out

    def value(self, up):
        total = 0
        for run in self.runs(up):
            total = total ^ grundy(run)
        return total

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        return ("Each run of standing pins is an independent Nim heap with its Kayles Grundy value "
                "(0,1,2,3,1,4,3,2,1,4,2,6,...); move so that the XOR of the runs' values becomes 0.")

    def reference_action(self):
        if self.done:
            return "resign"
        options = sorted(self.moves(), key=lambda m: self.order.index(m[0]))
        for m in options:
            after = list(self.up)
            for i in m:
                after[i] = False
            if self.value(after) == 0:
                return " ".join(str(i + 1) for i in m)
        return " ".join(str(i + 1) for i in options[0])
