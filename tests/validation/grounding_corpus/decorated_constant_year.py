# flaw: a generated sum with one document number bolted on (the same fact on every seed)
"""Revolution sums."""

ENV_SPEC = {
    "name": "RevolutionYearSums",
    "domain": "math",
    "description": "Add two numbers to a year.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"digits": {"min": 2, "max": 3, "default": 2}},
    "grounding": "The year the revolution began.",
}

YEAR = 1789


class RevolutionYearSums:
    def __init__(self, digits=2):
        self.digits = digits
        self.a = 0
        self.b = 0

    def reset(self, rng, options):
        low, high = 10 ** (self.digits - 1), 10 ** self.digits - 1
        self.a, self.b = rng.randint(low, high), rng.randint(low, high)
        return f"The revolution began in {YEAR}. Compute {YEAR} + {self.a} * {self.b}. Answer as \\boxed{{N}}.", {}

    def step(self, action):
        text = action.strip()
        if text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit():
            ok = int(text[7:-1]) == YEAR + self.a * self.b
            return ("Correct." if ok else "Wrong."), (1.0 if ok else 0.0), True, False, {"success": ok}
        return "Answer as \\boxed{N}.", 0.0, True, False, {"success": False, "format_error": "no boxed answer"}

    def privileged_hint(self):
        return "Do the product first, then add the year."

    def reference_action(self):
        return f"\\boxed{{{YEAR + self.a * self.b}}}"
