# expect: reward_rule
# twin: depth_sounding
# flaw: finding the bottom pays 0.4 of a declared [0, 1]
"""Soundings where success pays well below the top of the declared range."""

import re

ENV_SPEC = {
    "name": "ThriftySounding",
    "domain": "games",
    "description": "Find the channel depth (whole metres) with at most ten soundings; each tells deeper or shallower.",
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "difficulty": {"deepest": {"min": 100, "max": 500, "default": 500, "description": "greatest possible depth"}},
    "grounding": "Hydrographic survey: a lead line sounding gives the depth under the keel.",
    "tags": ["search", "feedback", "multi-turn"],
}

NUMBER = re.compile(r"-?\d+")


class ThriftySounding:
    def __init__(self, deepest=500):
        self.deepest = deepest
        self.depth = 1
        self.low = 1
        self.high = deepest

    def reset(self, rng, options):
        self.depth = rng.randint(20, self.deepest)
        self.low, self.high = 1, self.deepest
        return (f"The channel is between 1 and {self.deepest} m deep. Reply with a depth in metres to sound it; "
                "you have 10 soundings."), {}

    def step(self, action):
        found = NUMBER.findall(action)
        if len(found) != 1:
            return "Reply with one whole number of metres.", 0.0, False, False, {"format_error": "one number"}
        guess = int(found[0])
        if guess == self.depth:
            return f"Bottom found at {guess} m.", 0.4, True, False, {"success": True}
        if guess < self.depth:
            self.low = max(self.low, guess + 1)
            return f"At {guess} m the lead finds no bottom: deeper.", 0.0, False, False, {}
        self.high = min(self.high, guess - 1)
        return f"At {guess} m the lead is already on the bottom: shallower.", 0.0, False, False, {}

    def privileged_hint(self):
        return "Halve the remaining range with every sounding."

    def reference_action(self):
        return str((self.low + self.high) // 2)
