# shape: a small secret space (24 finishing orders) and a reference whose opening is a fixed plan
"""Guess the finishing order of four runners (24 possible orders) from how many are placed right; the reference
opens with the same guess on every seed and then plays the first order consistent with the feedback."""

from itertools import permutations

ENV_SPEC = {
    "name": "RunnerOrder",
    "domain": "games",
    "description": "Deduce the finishing order of four runners from feedback saying how many are in the right place.",
    "reward_range": [0.0, 1.0],
    "max_turns": 7,
    "difficulty": {"turns": {"min": 5, "max": 7, "default": 7, "description": "guesses allowed"}},
    "grounding": "Permutation Mastermind: exact-position feedback narrows the 24 orders of four items.",
    "tags": ["deduction", "small-space", "permutations"],
}

ORDERS = ["".join(p) for p in permutations("ABCD")]


def placed(guess, secret):
    return sum(1 for a, b in zip(guess, secret) if a == b)


class RunnerOrder:
    def __init__(self, turns=7):
        self.turns = turns
        self.secret = ORDERS[0]
        self.history = []
        self.left = turns
        self.done = False

    def reset(self, rng, options):
        self.secret = ORDERS[rng.randrange(len(ORDERS))]
        self.history = []
        self.left = self.turns
        self.done = False
        return (f"Runners A, B, C and D finished a race in some order. Guess the order as four letters, first "
                f"place first (e.g. BDAC). After each guess you learn how many runners are in the right place. "
                f"You have {self.left} guesses."), {}

    def step(self, action):
        guess = action.strip().upper().replace(" ", "")
        if self.done:
            return "The race is over.", 0.0, True, False, {"success": False}
        if sorted(guess) != list("ABCD"):
            info = {"success": False, "format_error": "expected the four letters A, B, C, D once each"}
            return "Write the four letters A, B, C and D once each, e.g. BDAC.", 0.0, False, False, info
        self.left = self.left - 1
        right = placed(guess, self.secret)
        self.history.append((guess, right))
        if right == 4:
            self.done = True
            return "All four placed right.", 1.0, True, False, {"success": True}
        if self.left == 0:
            self.done = True
            return f"{right} placed right. No guesses left.", 0.0, True, False, {"success": False}
        return f"{guess}: {right} placed right. {self.left} guesses left.", 0.0, False, False, {"success": False}

    def _consistent(self):
        return [o for o in ORDERS if all(placed(g, o) == r for g, r in self.history)]

    def privileged_hint(self):
        return f"{len(self._consistent())} orders are still consistent with every answer so far."

    def reference_action(self):
        return self._consistent()[0]
