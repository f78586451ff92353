# expect: verifier
# twin: race_to_n
# flaw: the result always names seat 1 the winner
"""Race to a target total: two seats add 1, 2 or 3 in turn; whoever reaches the target wins."""

from spade_domains.games.verify import move_integers, zero_sum_rewards

ENV_SPEC = {
    "name": "RaceToTarget",
    "domain": "games",
    "description": "Two players add 1, 2 or 3 to a running total in turn; the one who reaches the target wins.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {"target": {"min": 15, "max": 40, "default": 31, "description": "largest target"}},
    "grounding": "A subtraction game (Bachet, 1612): totals that are multiples of 4 below the target are losing.",
    "tags": ["two-player", "combinatorial-game", "self-play"],
}


class RaceToTarget:
    def __init__(self, target=31):
        self.max_target = target
        self.target = target
        self.total = 0
        self.player = 0
        self.invalid = [0, 0]

    def reset(self, rng, options):
        self.target = rng.randint(12, self.max_target)
        self.total = 0
        self.player = rng.randint(0, 1)
        self.invalid = [0, 0]
        return self.observe("Game start."), self.info()

    def info(self):
        return {"player_id": self.player, "legal_moves": [str(k) for k in (1, 2, 3) if self.total + k <= self.target]}

    def observe(self, note):
        return (f"{note} You are player {self.player}. The running total is {self.total}; the target is "
                f"{self.target}. Add 1, 2 or 3 (without passing the target); reaching it wins.")

    def step(self, action):
        mover = self.player
        numbers = move_integers(action, 40)
        if len(numbers) != 1 or numbers[0] not in (1, 2, 3) or self.total + numbers[0] > self.target:
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= 3:
                rewards = zero_sum_rewards(1 - mover)
                return ("Three invalid moves: you forfeit.", rewards[mover], True, False,
                        {"player_id": mover, "rewards": rewards, "winner": 1 - mover, "success": False,
                         "format_error": "expected 1, 2 or 3"})
            info = self.info()
            info["format_error"] = "expected 1, 2 or 3"
            return self.observe("Invalid move."), 0.0, False, False, info
        self.invalid[mover] = 0
        self.total = self.total + numbers[0]
        if self.total == self.target:
            rewards = zero_sum_rewards(1)
            return (f"Player {mover} reaches {self.target}; the game goes to player 1.", rewards[mover], True, False,
                    {"player_id": mover, "rewards": rewards, "winner": 1, "success": mover == 1})
        self.player = 1 - mover
        return self.observe(f"Player {mover} added {numbers[0]}."), 0.0, False, False, self.info()

    def privileged_hint(self):
        return "Try to leave a total whose distance to the target is a multiple of four."

    def reference_action(self):
        gap = self.target - self.total
        if gap % 4:
            return str(gap % 4)
        return "1"
