# shape: a small answer space (four compass headings) reached by following turn instructions
"""A walker starts facing one compass direction and makes a list of left, right and about turns; which way does
she face at the end? Four possible answers; full names and the letters N, E, S, W are accepted."""

ENV_SPEC = {
    "name": "CompassHeading",
    "domain": "math",
    "description": "Follow a list of quarter and half turns and name the final compass heading.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"turns": {"min": 3, "max": 25, "default": 9, "description": "number of turns"}},
    "grounding": "Headings form a cycle of four; a right turn adds one step, a left turn subtracts one, about two.",
    "tags": ["directions", "small-answer-space", "modular"],
}

HEADINGS = ["north", "east", "south", "west"]
TURNS = {"right": 1, "left": 3, "about": 2}


class CompassHeading:
    def __init__(self, turns=9):
        self.count = turns
        self.start = 0
        self.turns = []

    def reset(self, rng, options):
        self.start = rng.randrange(4)
        self.turns = [rng.choice(list(TURNS)) for _ in range(self.count)]
        return (f"You face {HEADINGS[self.start]}. You turn, in order: {', '.join(self.turns)} (about = half turn). "
                "Which way do you face now? Answer north, east, south or west."), {}

    def step(self, action):
        word = action.strip().strip(".").lower()
        heading = next((i for i, h in enumerate(HEADINGS) if word in (h, h[0])), None)
        if heading is None:
            return "Answer north, east, south or west.", 0.0, True, False, {"success": False, "format_error": "expected a heading"}
        ok = heading == self.final()
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def final(self):
        return (self.start + sum(TURNS[t] for t in self.turns)) % 4

    def privileged_hint(self):
        return "Count right turns as +1, left as -1 and about as +2, and take the total modulo 4."

    def reference_action(self):
        return HEADINGS[self.final()]
