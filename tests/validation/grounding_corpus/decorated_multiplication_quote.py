# flaw: generated multiplication with document sentences pasted into the observation (the answers ignore them)
"""Arithmetic with a history lesson pasted around it."""

ENV_SPEC = {
    "name": "RevolutionQuoteProducts",
    "domain": "math",
    "description": "Multiply two numbers.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"digits": {"min": 2, "max": 3, "default": 2}},
    "grounding": "The French Revolution.",
}

PASSAGES = [
    "The Storming of the Bastille on 14 July 1789 became a symbol of the uprising.",
    "The Estates General convened at Versailles in May 1789; the Third Estate declared itself the National Assembly.",
    "The Committee of Public Safety under Maximilien Robespierre led the Reign of Terror.",
]


class RevolutionQuoteProducts:
    def __init__(self, digits=2):
        self.digits = digits
        self.a = 0
        self.b = 0
        self.passage = PASSAGES[0]

    def reset(self, rng, options):
        low, high = 10 ** (self.digits - 1), 10 ** self.digits - 1
        self.a, self.b = rng.randint(low, high), rng.randint(low, high)
        self.passage = rng.choice(PASSAGES)
        return f"{self.passage}\nCompute {self.a} * {self.b}. Answer as \\boxed{{N}}.", {}

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
