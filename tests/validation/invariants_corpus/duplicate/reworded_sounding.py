# expect: novelty
# twin: depth_sounding
# flaw: DepthSounding with every identifier renamed and all text reworded
"""Locate a hidden altitude with probes that say higher or lower."""

import re

ENV_SPEC = {
    "name": "BalloonAltitude",
    "domain": "games",
    "description": "Find the channel depth (whole metres) with at most ten soundings; each tells deeper or shallower.",
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "difficulty": {"top": {"min": 100, "max": 500, "default": 500, "description": "greatest possible depth"}},
    "grounding": "Hydrographic survey: a lead line sounding gives the depth under the keel.",
    "tags": ["search", "feedback", "multi-turn"],
}

DIGITS = re.compile(r"-?\d+")


class BalloonAltitude:
    def __init__(self, top=500):
        self.top = top
        self.altitude = 1
        self.floor = 1
        self.ceiling = top

    def reset(self, rng, options):
        self.altitude = rng.randint(20, self.top)
        self.floor, self.ceiling = 1, self.top
        return (f"A balloon floats somewhere from 1 to {self.top} hundred feet. Name an altitude to probe; "
                "ten probes allowed."), {}

    def step(self, action):
        parts = DIGITS.findall(action)
        if len(parts) != 1:
            return "Give a single integer altitude.", 0.0, False, False, {"format_error": "one number"}
        probe = int(parts[0])
        if probe == self.altitude:
            return f"Balloon spotted at {probe}.", 1.0, True, False, {"success": True}
        if probe < self.altitude:
            self.floor = max(self.floor, probe + 1)
            return f"Nothing at {probe}; it floats higher.", 0.0, False, False, {}
        self.ceiling = min(self.ceiling, probe - 1)
        return f"Nothing at {probe}; it floats lower.", 0.0, False, False, {}

    def privileged_hint(self):
        return "Split the interval in two each time you probe."

    def reference_action(self):
        return str((self.floor + self.ceiling) // 2)
