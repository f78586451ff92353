"""Count one kind of item across a shelf listing whose lines name several kinds, one question per kind."""

from spade_example_plugin.verify import read_count, safe_echo

ENV_SPEC = {
    "name": "ExampleShelfCount",
    "domain": "tally",
    "description": (
        "A shelf listing gives quantities of several items on separate lines, an item often on several lines. "
        "Answer how many of each asked item there are in total, one item per turn."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "players": 1,
    "difficulty": {
        "lines": {"min": 4, "max": 12, "default": 6, "description": "lines in the listing"},
        "questions": {"min": 1, "max": 3, "default": 2, "description": "items asked about"},
    },
    "grounding": "Stock-taking: an item's total is the sum of its quantities over every line that lists it.",
    "tags": ["example", "third-party", "counting", "inventory"],
}

ITEMS = ["apples", "pears", "plums", "lemons", "figs"]


class ShelfCount:
    def __init__(self, lines=6, questions=2):
        self.lines = lines
        self.questions = questions
        self.listing = []
        self.asked = []
        self.index = 0
        self.retries = 0

    def reset(self, rng, options):
        self.listing = [(rng.choice(ITEMS), rng.randint(2, 19)) for _ in range(self.lines)]
        present = []
        for item, _ in self.listing:
            if item not in present:
                present.append(item)
        rng.shuffle(present)
        self.asked = present[: self.questions]
        self.index = 0
        self.retries = 0
        text = "\n".join(f"- {count} {item}" for item, count in self.listing)
        return f"Shelf listing:\n{text}\n{self._question()}", {}

    def _total(self, item):
        return sum(count for name, count in self.listing if name == item)

    def _question(self):
        return f"How many {self.asked[self.index]} are there in total? Reply \\boxed{{N}}."

    def step(self, action):
        given = read_count(action)
        if given is None:
            obs = f"'{safe_echo(action)}' is not a count. " + self._question()
            return obs, 0.0, False, False, {"format_error": "expected one whole number, e.g. \\boxed{12}"}
        item = self.asked[self.index]
        if given != self._total(item):
            if self.retries >= 1:
                return f"Wrong: that is not the number of {item}.", 0.0, True, False, {"success": False}
            self.retries = self.retries + 1
            return f"{given} is not the number of {item}; count again. " + self._question(), 0.0, False, False, {}
        self.index = self.index + 1
        reward = 1.0 / len(self.asked)
        if self.index == len(self.asked):
            return "Correct, the stock-take is done.", reward, True, False, {"success": True}
        return "Correct. " + self._question(), reward, False, False, {}

    def privileged_hint(self):
        item = self.asked[min(self.index, len(self.asked) - 1)]
        lines = sum(1 for name, _ in self.listing if name == item)
        return f"The {item} appear on {lines} separate line(s) of the listing; add the quantity of each such line."

    def reference_action(self):
        return f"\\boxed{{{self._total(self.asked[min(self.index, len(self.asked) - 1)])}}}"
