# flaw: pure multiplication labelled with the document's topic (only the ENV_SPEC names it)
"""French Revolution arithmetic."""

ENV_SPEC = {
    "name": "FrenchRevolutionProducts",
    "domain": "math",
    "description": "French Revolution practice: the Estates General, the Bastille and Versailles as multiplication.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"digits": {"min": 2, "max": 3, "default": 2}},
    "grounding": "The French Revolution of 1789: Estates General, Bastille, Versailles, Robespierre, Napoleon.",
}


class FrenchRevolutionProducts:
    def __init__(self, digits=2):
        self.digits = digits
        self.a = 0
        self.b = 0

    def reset(self, rng, options):
        low, high = 10 ** (self.digits - 1), 10 ** self.digits - 1
        self.a, self.b = rng.randint(low, high), rng.randint(low, high)
        return f"French Revolution drill: compute {self.a} * {self.b}. Answer as \\boxed{{N}}.", {}

    def step(self, action):
        text = action.strip()
        if text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit():
            ok = int(text[7:-1]) == self.a * self.b
            return ("Correct." if ok else "Wrong."), (1.0 if ok else 0.0), True, False, {"success": ok}
        return "Answer as \\boxed{N}.", 0.0, True, False, {"success": False, "format_error": "no boxed answer"}

    def privileged_hint(self):
        return "Multiply by the tens digit first, then by the units digit, and add the two products."

    def reference_action(self):
        return f"\\boxed{{{self.a * self.b}}}"
