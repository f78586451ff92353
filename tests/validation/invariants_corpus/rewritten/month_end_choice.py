# expect: same_draws
# twin: dated_ledger_choice
# flaw: the dated ledger rewritten with new helpers, names and wording: the same entries, options and answers
"""Month-end close: choose which offered figure is the balance carried forward."""

import math

ENV_SPEC = {
    "name": "MonthEndChoice",
    "domain": "math",
    "description": "Find the balance carried forward at month end and give the matching offered figure as "
                   "\\boxed{x}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"entries": {"min": 6, "max": 10, "default": 8, "description": "postings in the month"}},
    "grounding": "Month-end close: carried-forward balance = brought-forward balance + credits - debits.",
    "tags": ["accounting", "choice"],
}

LABELS = ["rent", "grocer", "salary", "refund", "utilities", "insurance", "bookshop", "pharmacy", "bonus", "fuel"]


def draw_postings(rng, count):
    postings = []
    for day in sorted(rng.sample(range(1, 29), count)):
        size = rng.randint(5, 900)
        label = rng.choice(LABELS)
        postings.append((day, label, size if rng.random() < 0.4 else -size))
    return postings


def read_number(action):
    text = action.strip()
    if "\\boxed{" in text:
        text = text[text.rfind("\\boxed{") + 7:].split("}")[0]
    try:
        number = float(text.replace(",", "").strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


class MonthEndChoice:
    def __init__(self, entries=8):
        self.size = entries
        self.brought = 0
        self.postings = []
        self.figures = []

    def reset(self, rng, options):
        self.brought = rng.randint(200, 3000)
        self.postings = draw_postings(rng, self.size)
        carried = self.carried()
        self.figures = [carried] + [carried + d for d in rng.sample([-90, -45, -20, -10, 10, 20, 45, 90], 3)]
        rng.shuffle(self.figures)
        body = "\n".join(f"  {day:>2} {label}: {amount:+d}" for day, label, amount in self.postings)
        figures = ", ".join(map(str, self.figures))
        return (f"Brought forward {self.brought}; postings this month:\n{body}\nThe balance carried forward is one "
                f"of: {figures}\nGive it as \\boxed{{x}}."), {}

    def carried(self):
        return self.brought + sum(amount for _, _, amount in self.postings)

    def step(self, action):
        number = read_number(action)
        if number is None:
            return "Give a finite number as \\boxed{x}.", 0.0, True, False, {"format_error": "expected a number"}
        if abs(number - self.carried()) < 0.005:
            return "That is the figure carried forward.", 1.0, True, False, {"success": True}
        return "That figure is not carried forward.", 0.0, True, False, {}

    def privileged_hint(self):
        debits = -sum(amount for _, _, amount in self.postings if amount < 0)
        return f"The debits total {debits}; subtract them from the brought-forward balance and add the credits."

    def reference_action(self):
        return f"\\boxed{{{self.carried()}}}"
