"""Single-turn arithmetic: evaluate a left-to-right chain of operations."""

from spade_domains.math.verify import answers_match, extract_answer

ENV_SPEC = {
    "name": "ArithmeticChain",
    "domain": "math",
    "description": "Evaluate a chain of integer operations applied left to right; answer in \\boxed{}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "players": 1,
    "difficulty": {
        "terms": {"min": 2, "max": 6, "default": 3, "description": "number of operands"},
        "digits": {"min": 1, "max": 4, "default": 2, "description": "digits per operand"},
    },
    "grounding": "Order of operations; here operations apply strictly left to right.",
    "tags": ["arithmetic", "single-turn"],
}


class ArithmeticChain:
    def __init__(self, terms=3, digits=2):
        self.terms = terms
        self.digits = digits
        self.numbers = []
        self.ops = []
        self.answer = 0

    def reset(self, rng, options):
        high = 10 ** self.digits - 1
        low = 1 if self.digits == 1 else 10 ** (self.digits - 1)
        self.numbers = [rng.randint(low, high) for _ in range(self.terms)]
        self.ops = [rng.choice(["+", "-", "*"]) for _ in range(self.terms - 1)]
        self.partials = [self.numbers[0]]
        for op, n in zip(self.ops, self.numbers[1:]):
            self.partials.append(self._apply(self.partials[-1], op, n))
        self.answer = self.partials[-1]
        return self._question(), {}

    def _apply(self, a, op, b):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return a * b

    def _question(self):
        text = str(self.numbers[0])
        for op, n in zip(self.ops, self.numbers[1:]):
            text = f"({text} {op} {n})"
        return f"Compute {text}. Give the final answer as \\boxed{{N}}."

    def step(self, action):
        given = extract_answer(action)
        if given is None:
            obs = "No final answer found. Write it as \\boxed{N}."
            return obs, 0.0, True, False, {"success": False, "format_error": "no \\boxed{} or 'Answer:' found"}
        correct = answers_match(given, str(self.answer))
        obs = "Correct." if correct else f"Incorrect: {given} is not the value."
        return obs, 1.0 if correct else 0.0, True, False, {"success": correct}

    def privileged_hint(self):
        if len(self.partials) < 3:
            return f"Work left to right; the operation is {self.ops[0]}."
        return f"After the first operation the running value is {self.partials[1]}."

    def reference_action(self):
        return f"\\boxed{{{self.answer}}}"
