# expect: accepted
"""Northcott's game for two seats played by the same policy: slide your checker along each row, never past the other."""

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "NorthcottRowsDuel",
    "domain": "games",
    "description": (
        "Two-player Northcott's game: every row holds one white checker (player 0) and one black checker "
        "(player 1), white to the left. A move slides one of your own checkers along its row, forward or back, "
        "any distance, never onto or past the other checker. A player with no move loses. Three invalid moves in "
        "a row forfeit; if the turn limit is reached the game is a draw."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 120,
    "players": 2,
    "difficulty": {
        "rows": {"min": 2, "max": 5, "default": 3, "description": "number of rows"},
        "width": {"min": 6, "max": 10, "default": 8, "description": "squares per row"},
    },
    "grounding": "Northcott's game is Nim in disguise: the empty squares between the two checkers of a row act as "
                 "a Nim heap, and retreating only delays, because the opponent can follow up.",
    "tags": ["two-player", "zero-sum", "combinatorial", "self-play", "board"],
}

INVALID_LIMIT = 3
MARKS = ["W", "B"]


class NorthcottRowsDuel:
    def __init__(self, rows=3, width=8):
        self.rows = rows
        self.width = width
        self.pos = []
        self.player = 0
        self.invalid = [0, 0]
        self.turns = 0
        self.done = False
        self.order = []

    def reset(self, rng, options):
        balanced = rng.random() < 0.5  # about half the starts are lost for the player to move
        while True:
            gaps = [rng.randint(0, self.width - 2) for _ in range(self.rows)]
            if balanced:
                rest = 0
                for g in gaps[:-1]:
                    rest = rest ^ g
                gaps[-1] = rest
            if gaps[-1] <= self.width - 2 and sum(gaps) > 0:
                break
        self.pos = []
        for g in gaps:
            white = rng.randint(0, self.width - 2 - g)
            self.pos.append([white, white + g + 1])
        self.player = 0
        self.invalid = [0, 0]
        self.turns = 0
        self.done = False
        self.order = list(range(self.rows))
        rng.shuffle(self.order)
        return self.observation("Game start."), {"player_id": 0, "legal_moves": self.legal_moves()}

    def targets(self, seat, row):
        white, black = self.pos[row]
        if seat == 0:
            return [c for c in range(0, black) if c != white]
        return [c for c in range(white + 1, self.width) if c != black]

    def legal_moves(self):
        return [f"{r + 1} {c + 1}" for r in range(self.rows) for c in self.targets(self.player, r)]

    def render(self):
        lines = ["        " + " ".join(str(c + 1)[-1] for c in range(self.width))]
        for r in range(self.rows):
            cells = ["."] * self.width
            cells[self.pos[r][0]] = "W"
            cells[self.pos[r][1]] = "B"
            lines.append(f"row {r + 1}:  " + " ".join(cells))
        return "\n".join(lines)

    def observation(self, note):
        return (
            f"{note}\nYou are player {self.player} ({MARKS[self.player]}); your opponent plays "
            f"{MARKS[1 - self.player]}.\n{self.render()}\n"
            f"Reply 'ROW COLUMN' to slide your checker in that row to that column (forward or back, never onto or "
            f"past the other checker). A player with no move loses. Turn {self.turns + 1} of {ENV_SPEC['max_turns']}."
        )

    def draw_by_limit(self, mover, obs, info):
        self.done = True
        info.update({"player_id": mover, "success": False, "rewards": [0.0, 0.0], "winner": None})
        return obs + "\nThe turn limit is reached: the game is a draw.", 0.0, False, True, info

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
        info = {"player_id": mover, "format_error": format_error, "action_is_valid": False,
                "legal_moves": self.legal_moves()}
        if self.turns >= ENV_SPEC["max_turns"]:
            return self.draw_by_limit(mover, message, info)
        return self.observation(message), 0.0, False, False, info

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": self.player, "action_is_valid": False}
        mover = self.player
        self.turns = self.turns + 1
        numbers = move_integers(action, 40)
        if len(numbers) != 2:
            return self.reject(mover, f"Could not read {safe_echo(action)!r}: reply 'ROW COLUMN', like '2 5'.",
                               "expected two integers: row and column")
        r, c = numbers[0] - 1, numbers[1] - 1
        if not 0 <= r < self.rows or c not in self.targets(mover, r):
            return self.reject(mover, f"Your checker cannot go to row {numbers[0]}, column {numbers[1]}: stay on "
                                      f"the board, on your side of the other checker, and move.", None)
        self.invalid[mover] = 0
        self.pos[r][mover] = c
        opponent = 1 - mover
        if not any(self.targets(opponent, row) for row in range(self.rows)):
            self.done = True
            rewards = zero_sum_rewards(mover)
            return (f"Player {mover} moved to row {r + 1}, column {c + 1}. Player {opponent} has no move left: "
                    f"player {mover} wins.\n{self.render()}", rewards[mover], True, False,
                    {"player_id": mover, "success": True, "rewards": rewards, "winner": mover,
                     "action_is_valid": True})
        if self.turns >= ENV_SPEC["max_turns"]:
            return self.draw_by_limit(mover, f"Player {mover} moved to row {r + 1}, column {c + 1}.",
                                      {"action_is_valid": True})
        self.player = opponent
        obs = self.observation(f"Player {mover} moved to row {r + 1}, column {c + 1}.")
        return obs, 0.0, False, False, {"player_id": self.player, "legal_moves": self.legal_moves(),
                                        "action_is_valid": True}

    def gaps(self):
        return [black - white - 1 for white, black in self.pos]

    def privileged_hint(self):
        total = 0
        for g in self.gaps():
            total = total ^ g
        if total:
            return ("Treat the empty squares between the checkers of each row as a Nim heap: the XOR of the gaps is "
                    "not zero, so some advance leaves it zero. If your opponent retreats, follow them.")
        return ("The XOR of the gaps (empty squares between the checkers of each row) is zero: you are losing "
                "against best play; small advances keep the game simple for you to exploit any slip.")

    def reference_action(self):
        if self.done:
            return "1 1"
        seat = self.player
        gaps = self.gaps()
        total = 0
        for g in gaps:
            total = total ^ g
        step = 1 if seat == 0 else -1
        for r in self.order:
            want = gaps[r] ^ total
            if total and want < gaps[r]:
                return f"{r + 1} {self.pos[r][seat] + step * (gaps[r] - want) + 1}"
        for r in self.order:
            if gaps[r] > 0:
                return f"{r + 1} {self.pos[r][seat] + step + 1}"
        for r in self.order:
            if self.targets(seat, r):
                return f"{r + 1} {self.targets(seat, r)[0] + 1}"
        return "1 1"
