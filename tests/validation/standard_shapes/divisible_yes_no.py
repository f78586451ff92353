# shape: a yes/no answer (a two-element answer space) about a large number's divisibility
"""Is a large number divisible by a small divisor? The answer space is yes or no; the seeds balance both."""

ENV_SPEC = {
    "name": "DivisibleYesNo",
    "domain": "math",
    "description": "Say whether a many-digit number is divisible by 3, 4, 9 or 11 (yes or no).",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"digits": {"min": 6, "max": 40, "default": 18, "description": "digits in the number"}},
    "grounding": "Divisibility rules: digit sums for 3 and 9, the last two digits for 4, alternating sums for 11.",
    "tags": ["divisibility", "yes-no", "number-theory"],
}

YES = ("yes", "y", "true")
NO = ("no", "n", "false")


class DivisibleYesNo:
    def __init__(self, digits=18):
        self.digits = digits
        self.number = 0
        self.divisor = 3

    def reset(self, rng, options):
        self.divisor = rng.choice([3, 4, 9, 11])
        self.number = rng.randint(10 ** (self.digits - 1), 10 ** self.digits - 1)
        if rng.random() < 0.5:
            self.number = self.number - self.number % self.divisor
        elif self.number % self.divisor == 0:
            self.number = self.number + 1
        return f"Is {self.number} divisible by {self.divisor}? Answer yes or no.", {}

    def step(self, action):
        word = action.strip().strip(".!").lower()
        if word not in YES + NO:
            return "Answer yes or no.", 0.0, True, False, {"success": False, "format_error": "expected yes or no"}
        ok = (word in YES) == (self.number % self.divisor == 0)
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        rules = {3: "add the digits", 9: "add the digits", 4: "look at the last two digits",
                 11: "alternately add and subtract the digits"}
        return f"To test {self.divisor}, {rules[self.divisor]}."

    def reference_action(self):
        return "yes" if self.number % self.divisor == 0 else "no"
