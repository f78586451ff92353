# expect: out_of_rules
# twin: patient_race
# flaw: any reply that is not an allowed number counts as waiting, with no format error: garbage is a legal move
"""Race to a target total with waiting allowed: two seats add 1, 2 or 3 or wait; the game is drawn after 40 moves."""

from spade_domains.games.verify import move_integers, zero_sum_rewards

ENV_SPEC = {
    "name": "LenientRace",
    "domain": "games",
    "description": "Two players add 1, 2 or 3 to a running total in turn, or wait; the one who reaches the target wins; "
                   "after 40 moves the game is drawn.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {"target": {"min": 15, "max": 40, "default": 31, "description": "largest target"}},
    "grounding": "A subtraction game (Bachet, 1612): totals that are multiples of 4 below the target are losing.",
    "tags": ["two-player", "combinatorial-game", "self-play"],
}

MOVE_LIMIT = 40
DRAW = zero_sum_rewards(None)


class LenientRace:
    def __init__(self, target=31):
        self.max_target = target
        self.target = target
        self.total = 0
        self.player = 0
        self.invalid = [0, 0]
        self.moves = 0

    def reset(self, rng, options):
        self.target = rng.randint(12, self.max_target)
        self.total = 0
        self.player = rng.randint(0, 1)
        self.invalid = [0, 0]
        self.moves = 0
        return self.observe("Game start."), self.info()

    def info(self):
        moves = [str(k) for k in (1, 2, 3) if self.total + k <= self.target]
        return {"player_id": self.player, "legal_moves": moves + ["wait"]}

    def observe(self, note):
        return (f"{note} You are player {self.player}. The running total is {self.total}; the target is "
                f"{self.target}. Add 1, 2 or 3 (without passing the target) or wait; reaching it wins. Move "
                f"{self.moves + 1} of {MOVE_LIMIT}: then the game is drawn.")

    def step(self, action):
        mover = self.player
        if action.strip().lower() == "wait":
            self.invalid[mover] = 0
            return self.advance(mover, f"Player {mover} waits.")
        numbers = move_integers(action, 40)
        if len(numbers) != 1 or numbers[0] not in (1, 2, 3) or self.total + numbers[0] > self.target:
            return self.advance(mover, f"Player {mover} waits.")
        self.invalid[mover] = 0
        self.total = self.total + numbers[0]
        if self.total == self.target:
            rewards = zero_sum_rewards(mover)
            return (f"Player {mover} reaches {self.target} and wins.", rewards[mover], True, False,
                    {"player_id": mover, "rewards": rewards, "winner": mover, "success": True})
        return self.advance(mover, f"Player {mover} added {numbers[0]}.")

    def advance(self, mover, note):
        self.moves = self.moves + 1
        if self.moves >= MOVE_LIMIT:
            rewards = list(DRAW)
            return (f"{note} {MOVE_LIMIT} moves played: the game is drawn.", rewards[mover], True, False,
                    {"player_id": mover, "rewards": rewards, "winner": None, "success": False})
        self.player = 1 - mover
        return self.observe(note), 0.0, False, False, self.info()

    def privileged_hint(self):
        return "Try to leave a total whose distance to the target is a multiple of four."

    def reference_action(self):
        gap = self.target - self.total
        if gap % 4:
            return str(gap % 4)
        return "1"
