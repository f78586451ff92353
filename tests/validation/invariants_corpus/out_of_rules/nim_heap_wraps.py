# expect: out_of_rules
# twin: passing_nim
# flaw: a count larger than the heap takes the whole heap and a heap number past 3 wraps round, silently
"""Three-heap Nim in which a seat may pass; two passes in a row end the game as a draw."""

from spade_domains.games.verify import move_integers, zero_sum_rewards

ENV_SPEC = {
    "name": "ForgivingNim",
    "domain": "games",
    "description": "Normal-play Nim with three heaps: take any number from one heap, or pass; taking the last "
                   "object wins, two passes in a row draw.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {"max_heap": {"min": 3, "max": 9, "default": 7, "description": "largest heap size"}},
    "grounding": "Bouton's theorem (1901): a Nim position is lost for the mover exactly when the nim-sum is zero.",
    "tags": ["two-player", "nim", "combinatorial-game", "self-play"],
}


DRAW = zero_sum_rewards(None)


class ForgivingNim:
    def __init__(self, max_heap=7):
        self.max_heap = max_heap
        self.heaps = [1, 1, 1]
        self.player = 0
        self.invalid = [0, 0]
        self.passed = False

    def reset(self, rng, options):
        self.heaps = [rng.randint(1, self.max_heap) for _ in range(3)]
        self.player = rng.randint(0, 1)
        self.invalid = [0, 0]
        self.passed = False
        return self.observe("Game start."), self.info()

    def legal(self):
        return [f"{n} {h + 1}" for h in range(3) for n in range(1, self.heaps[h] + 1)] + ["pass"]

    def info(self):
        return {"player_id": self.player, "legal_moves": self.legal()}

    def observe(self, note):
        heaps = ", ".join(f"heap {i + 1}: {n}" for i, n in enumerate(self.heaps))
        return (f"{note} You are player {self.player}. Heaps: {heaps}. Reply 'COUNT HEAP' (e.g. '2 1' takes two "
                "from heap 1) or 'pass'. Taking the last object wins; two passes in a row draw.")

    def step(self, action):
        mover = self.player
        if action.strip().lower() == "pass":
            self.invalid[mover] = 0
            if self.passed:
                rewards = list(DRAW)
                return ("Two passes in a row: the game is drawn.", rewards[mover], True, False,
                        {"player_id": mover, "rewards": rewards, "winner": None, "success": False})
            self.passed = True
            self.player = 1 - mover
            return self.observe(f"Player {mover} passed."), 0.0, False, False, self.info()
        numbers = move_integers(action, 40)
        if len(numbers) == 2 and numbers[0] >= 1 and numbers[1] >= 1:
            heap = (numbers[1] - 1) % 3
            numbers = [min(numbers[0], self.heaps[heap]), heap + 1]
        ok = len(numbers) == 2 and 1 <= numbers[1] <= 3 and 1 <= numbers[0] <= self.heaps[numbers[1] - 1] \
            if len(numbers) == 2 and 1 <= numbers[1] <= 3 else False
        if not ok:
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= 3:
                rewards = zero_sum_rewards(1 - mover)
                return ("Three invalid moves: you forfeit.", rewards[mover], True, False,
                        {"player_id": mover, "rewards": rewards, "winner": 1 - mover, "success": False,
                         "action_is_valid": False})
            info = self.info()
            info["action_is_valid"] = False
            return self.observe("Invalid move."), 0.0, False, False, info
        self.invalid[mover] = 0
        self.passed = False
        self.heaps[numbers[1] - 1] = self.heaps[numbers[1] - 1] - numbers[0]
        if sum(self.heaps) == 0:
            rewards = zero_sum_rewards(mover)
            return (f"Player {mover} took the last object and wins.", rewards[mover], True, False,
                    {"player_id": mover, "rewards": rewards, "winner": mover, "success": True})
        self.player = 1 - mover
        return self.observe(f"Player {mover} took {numbers[0]} from heap {numbers[1]}."), 0.0, False, False, \
            self.info()

    def privileged_hint(self):
        nim_sum = self.heaps[0] ^ self.heaps[1] ^ self.heaps[2]
        if nim_sum == 0:
            return "The nim-sum is zero: every move loses against perfect play, so make a small one and wait."
        return "The nim-sum is not zero: some move makes it zero, and that move keeps the win."

    def reference_action(self):
        nim_sum = self.heaps[0] ^ self.heaps[1] ^ self.heaps[2]
        for h in range(3):
            target = self.heaps[h] ^ nim_sum
            if nim_sum and target < self.heaps[h]:
                return f"{self.heaps[h] - target} {h + 1}"
        biggest = max(range(3), key=lambda i: self.heaps[i])
        return f"1 {biggest + 1}"
