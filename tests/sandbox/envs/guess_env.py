"""A small multi-turn designer-format environment used to compare sandboxed and in-process traces."""

ENV_SPEC = {
    "name": "GuessNumber",
    "domain": "games",
    "description": "Guess a hidden number; after each guess the environment says higher or lower.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"high": {"min": 10, "max": 1000, "default": 100}},
}


class GuessNumber:
    def __init__(self, high=100):
        self.high = high
        self.low = 1
        self.secret = None
        self.turns = 0
        self.history = []
        self._bounds = [1, high]

    def _get_obs(self, note):
        lo, hi = self._bounds
        return f"{note} Range: [{lo}, {hi}]. Turns used: {self.turns}."

    def reset(self, rng, options):
        self.secret = rng.randint(self.low, self.high)
        self.turns = 0
        self.history = []
        self._bounds = [self.low, self.high]
        return self._get_obs("I picked a number."), {"high": self.high}

    def _parse(self, action):
        try:
            return int(action.strip()), None
        except ValueError:
            return None, f"not an integer: {action!r}"

    def step(self, action):
        guess, problem = self._parse(action)
        self.turns += 1
        if problem is not None:
            return self._get_obs("Invalid."), 0.0, False, False, {"format_error": problem, "action_is_valid": False}
        self.history += [guess]
        if guess == self.secret:
            reward = round(1.0 - (self.turns - 1) / 12, 4)
            return self._get_obs("Correct!"), reward, True, False, {"success": True, "guesses": tuple(self.history)}
        if guess < self.secret:
            self._bounds[0] = max(self._bounds[0], guess + 1)
            note = "Higher."
        else:
            self._bounds[1] = min(self._bounds[1], guess - 1)
            note = "Lower."
        return self._get_obs(note), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return "The number is odd." if self.secret % 2 else "The number is even."

    def reference_action(self):
        lo, hi = self._bounds
        return str((lo + hi) // 2)
