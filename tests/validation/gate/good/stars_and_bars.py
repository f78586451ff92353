# expect: accepted
"""Distribute identical items into boxes with a minimum per box (stars and bars), in two checked steps."""

import math

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "StarsAndBarsCount",
    "domain": "math",
    "description": (
        "n identical tokens go into k distinct boxes, each box getting at least m. First give how many tokens "
        "remain free after the minimums, then the number of distributions; too high/too low feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "players": 1,
    "difficulty": {
        "boxes": {"min": 2, "max": 6, "default": 4, "description": "most boxes drawn"},
        "minimum": {"min": 1, "max": 4, "default": 2, "description": "largest per-box minimum drawn"},
    },
    "grounding": (
        "Stars and bars: the number of ways to put r identical items into k distinct boxes is C(r + k - 1, "
        "k - 1); a lower bound m per box is handled by pre-filling each box, leaving r = n - k m free items."
    ),
    "tags": ["combinatorics", "stars-and-bars", "counting", "multi-step"],
}

TRIES = 3
CAP = 4000


class StarsAndBarsCount:
    def __init__(self, boxes=4, minimum=2):
        self.boxes = boxes
        self.minimum = minimum
        self.n = 10
        self.k = 2
        self.m = 1
        self.targets = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        while True:
            k = rng.randint(2, self.boxes)
            m = rng.randint(1, self.minimum)
            free = rng.randint(2, 40)
            ways = math.comb(free + k - 1, k - 1)
            if ways <= CAP:
                break
        self.k, self.m, self.n = k, m, free + k * m
        self.targets = [free, ways]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (f"{self.n} identical tokens are put into {k} distinct boxes so that every box gets at least {m}. "
               f"Reply \\boxed{{n}}; {TRIES} tries per step.\n{self.question()}")
        return obs, {"step": 0}

    def question(self):
        if self.index == 0:
            return "Step 1: how many tokens are left to place freely once each box holds its minimum?"
        return "Step 2: in how many ways can the tokens be distributed?"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one whole number as \\boxed{{n}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}", "step": self.index}
        expected = self.targets[self.index]
        v = value.numerator
        if v == expected:
            self.index = self.index + 1
            self.attempts = 0
            if self.index == 2:
                self.done = True
                return "Correct. All distributions counted.", 0.5, True, False, {"success": True, "step": 2}
            return f"Correct.\n{self.question()}", 0.5, False, False, {"success": False, "step": 1}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if v > expected else 'low'}"
        if self.attempts >= TRIES:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {TRIES - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.index == 0:
            return "Pre-fill every box with its minimum and see what is left of the tokens."
        return "Count arrangements of the free tokens and the k - 1 dividers between boxes."

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{self.targets[self.index]}}}"
