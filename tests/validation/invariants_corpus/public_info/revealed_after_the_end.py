# expect: public_info
# twin: depth_sounding
# flaw: wrong soundings say only 'no', and the depth is revealed only once the soundings are used up
"""Soundings that tell the depth only after the last try."""

import re

ENV_SPEC = {
    "name": "LateChart",
    "domain": "games",
    "description": "Find the channel depth (whole metres) with at most ten soundings; each tells deeper or shallower.",
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "difficulty": {"deepest": {"min": 100, "max": 500, "default": 500, "description": "greatest possible depth"}},
    "grounding": "Hydrographic survey: a lead line sounding gives the depth under the keel.",
    "tags": ["search", "feedback", "multi-turn"],
}

NUMBER = re.compile(r"-?\d+")


class LateChart:
    def __init__(self, deepest=500):
        self.deepest = deepest
        self.depth = 1
        self.low = 1
        self.high = deepest

    def reset(self, rng, options):
        self.depth = rng.randint(20, self.deepest)
        self.low, self.high = 1, self.deepest
        self.tries = 0
        return (f"The channel is between 1 and {self.deepest} m deep. Reply with a depth in metres to sound it; "
                "you have 10 soundings."), {}

    def step(self, action):
        found = NUMBER.findall(action)
        if len(found) != 1:
            return "Reply with one whole number of metres.", 0.0, False, False, {"format_error": "one number"}
        guess = int(found[0])
        if guess == self.depth:
            return f"Bottom found at {guess} m.", 1.0, True, False, {"success": True}
        self.tries = getattr(self, 'tries', 0) + 1
        if self.tries >= 10:
            return f"Out of soundings; the bottom was at {self.depth} m.", 0.0, True, False, {}
        if guess < self.depth:
            self.low = max(self.low, guess + 1)
            return "No.", 0.0, False, False, {}
        self.high = min(self.high, guess - 1)
        return "No.", 0.0, False, False, {}

    def privileged_hint(self):
        return f"Charted depth: {self.depth * 3} feet."

    def reference_action(self):
        return str(self.depth)
