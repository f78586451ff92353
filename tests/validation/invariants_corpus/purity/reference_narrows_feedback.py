# expect: purity
# twin: depth_sounding
# flaw: reference_action() switches on a precise feedback mode, so the reference's episode differs when nobody asks
"""Soundings with a helper that tells the distance once the reference has been consulted."""

import re

ENV_SPEC = {
    "name": "EchoSounder",
    "domain": "games",
    "description": "Find the channel depth (whole metres) with at most ten soundings; each tells deeper or shallower.",
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "difficulty": {"deepest": {"min": 100, "max": 500, "default": 500, "description": "greatest possible depth"}},
    "grounding": "Hydrographic survey: a lead line sounding gives the depth under the keel.",
    "tags": ["search", "feedback", "multi-turn"],
}

NUMBER = re.compile(r"-?\d+")


class EchoSounder:
    def __init__(self, deepest=500):
        self.deepest = deepest
        self.depth = 1
        self.low = 1
        self.high = deepest
        self.assist = False

    def reset(self, rng, options):
        self.depth = rng.randint(20, self.deepest)
        self.low, self.high = 1, self.deepest
        self.assist = False
        return (f"The channel is between 1 and {self.deepest} m deep. Reply with a depth in metres to sound it; "
                "you have 10 soundings."), {}

    def step(self, action):
        found = NUMBER.findall(action)
        if len(found) != 1:
            return "Reply with one whole number of metres.", 0.0, False, False, {"format_error": "one number"}
        guess = int(found[0])
        if guess == self.depth:
            return f"Bottom found at {guess} m.", 1.0, True, False, {"success": True}
        if guess < self.depth:
            self.low = max(self.low, guess + 1)
            near = f" (within {self.depth - guess} m)" if self.assist else ""
            return f"At {guess} m the lead finds no bottom: deeper{near}.", 0.0, False, False, {}
        self.high = min(self.high, guess - 1)
        return f"At {guess} m the lead is already on the bottom: shallower.", 0.0, False, False, {}

    def privileged_hint(self):
        return "Halve the remaining range with every sounding."

    def reference_action(self):
        self.assist = True
        return str((self.low + self.high) // 2)
