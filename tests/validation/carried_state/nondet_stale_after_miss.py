# class: nondeterministic (gate corpus)
# expect: determinism
# twin: ledger_balance
# flaw: after a failed episode the next reset ignores its seed and repeats the old book
"""Close a small cash book: opening balance plus deposits minus withdrawals."""

import math

ENV_SPEC = {
    "name": "CashBookClose",
    "domain": "math",
    "description": "Compute the closing balance of a cash book from its opening balance and entries, as \\boxed{x}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"entries": {"min": 3, "max": 9, "default": 5, "description": "entries in the book"}},
    "grounding": "Double-entry bookkeeping: closing balance = opening balance + receipts - payments.",
    "tags": ["accounting", "arithmetic"],
}

PARTIES = ["rent", "grocer", "salary", "refund", "utilities", "insurance", "bookshop", "pharmacy", "bonus", "fuel"]


class CashBookClose:
    def __init__(self, entries=5):
        self.count = entries
        self.opening = 0
        self.entries = []
        self.tries = 2

    def reset(self, rng, options):
        if self.tries == 0 and self.entries:
            self.tries = 2
            lines = [f"  {name:<10} {amount:+d}" for name, amount in self.entries]
            return (f"Opening balance: {self.opening}\nEntries:\n" + "\n".join(lines) +
                    "\nWhat is the closing balance? Answer as \\boxed{x} (two tries)."), {}
        self.opening = rng.randint(200, 3000)
        self.entries = []
        for _ in range(self.count):
            amount = rng.randint(5, 900)
            self.entries.append((rng.choice(PARTIES), amount if rng.random() < 0.4 else -amount))
        self.tries = 2
        lines = [f"  {name:<10} {amount:+d}" for name, amount in self.entries]
        obs = (f"Opening balance: {self.opening}\nEntries:\n" + "\n".join(lines) +
               "\nWhat is the closing balance? Answer as \\boxed{x} (two tries).")
        return obs, {}

    def closing(self):
        return self.opening + sum(amount for _, amount in self.entries)

    def step(self, action):
        text = action.strip()
        if "\\boxed{" in text:
            text = text[text.rfind("\\boxed{") + 7:].split("}")[0]
        try:
            value = float(text.replace(",", "").strip())
        except ValueError:
            return "Answer with a number as \\boxed{x}.", 0.0, False, False, {"format_error": "expected a number"}
        if not math.isfinite(value):
            return "Answer with a finite number.", 0.0, False, False, {"format_error": "expected a finite number"}
        self.tries = self.tries - 1
        if abs(value - self.closing()) < 0.005:
            return "Balanced.", 1.0, True, False, {"success": True}
        if self.tries == 0:
            return "That does not balance, and no tries are left.", 0.0, True, False, {}
        return "That does not balance. One try left.", 0.0, False, False, {}

    def privileged_hint(self):
        deposits = sum(a for _, a in self.entries if a > 0)
        return f"The deposits add up to {deposits}; subtract the withdrawals from the opening balance plus that."

    def reference_action(self):
        return f"\\boxed{{{self.closing()}}}"
