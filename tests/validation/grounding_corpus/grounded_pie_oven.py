# good (two facts per task, no proper nouns): the oven temperature and time for a kind of pie, asked turn by turn
"""Oven settings from the document."""

ENV_SPEC = {
    "name": "PieOvenSettings",
    "domain": "math",
    "description": "Give the oven temperature, then the total time for several batches of one kind of pie.",
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "difficulty": {"batches": {"min": 2, "max": 5, "default": 3}},
    "grounding": "Baking temperatures and times of the document.",
}

OVEN = {"fruit": (200, 45), "custard": (160, 50), "meat": (190, 60)}


class PieOvenSettings:
    def __init__(self, batches=3):
        self.batches = batches
        self.kind = "fruit"
        self.count = 2
        self.stage = 0
        self.misses = 0

    def reset(self, rng, options):
        self.kind = rng.choice(sorted(OVEN))
        self.count = rng.randint(2, self.batches)
        self.stage = 0
        self.misses = 0
        return f"You bake {self.kind} pies. First: at how many degrees? Answer as \\boxed{{N}}.", {}

    def _target(self):
        temp, minutes = OVEN[self.kind]
        return temp if self.stage == 0 else minutes * self.count

    def step(self, action):
        text = action.strip()
        if not (text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit()):
            return "Answer as \\boxed{N}.", 0.0, False, False, {"success": False, "format_error": "no number"}
        if int(text[7:-1]) != self._target():
            self.misses = self.misses + 1
            done = self.misses >= 2
            return "Wrong.", 0.0, done, False, {"success": False}
        if self.stage == 0:
            self.stage = 1
            return (f"Right. Now: how many minutes in total for {self.count} batches, one after another? "
                    "Answer as \\boxed{N}."), 0.5, False, False, {"success": False}
        return "Correct.", 0.5, True, False, {"success": True}

    def privileged_hint(self):
        return "Look up the kind of pie in the baking times; total time is one bake times the number of batches."

    def reference_action(self):
        return f"\\boxed{{{self._target()}}}"
