# shape: a checkout receipt worked to the cent (subtotal, category discount, rounded sales tax, total, change), one checked amount per turn.
"""Work through a shop receipt one money amount per turn, each exact to the cent."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "ShopReceiptCents",
    "domain": "math",
    "description": (
        "A grocery receipt lists items with quantities and unit prices. Step by step, give the subtotal, the "
        "member discount on one category, the sales tax (rounded half up to the cent), the total and the change "
        "from cash; every amount must be exact to the cent."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 18,
    "players": 1,
    "difficulty": {
        "items": {"min": 2, "max": 6, "default": 4, "description": "receipt lines to add up"},
        "steps": {"min": 3, "max": 5, "default": 5, "description": "amounts asked (subtotal .. change)"},
    },
    "grounding": (
        "Retail arithmetic: line total = quantity x unit price; a percentage discount applies to one category's "
        "lines; sales tax is a percentage of the discounted subtotal rounded half up to the cent; change is cash "
        "tendered minus total."
    ),
    "tags": ["money", "percent", "rounding", "multi-step"],
}

ATTEMPTS = 3
CATALOG = [
    ("apples (kg)", "produce", 189, 449), ("bananas (kg)", "produce", 99, 199), ("tomatoes (kg)", "produce", 249, 599),
    ("lettuce", "produce", 129, 279), ("milk 1L", "dairy", 89, 189), ("yogurt", "dairy", 59, 149),
    ("cheddar 200g", "dairy", 299, 549), ("butter", "dairy", 219, 399), ("bread", "bakery", 199, 449),
    ("croissant", "bakery", 79, 189), ("bagels x6", "bakery", 299, 499), ("coffee 250g", "pantry", 449, 899),
    ("rice 1kg", "pantry", 149, 329), ("olive oil", "pantry", 599, 1199), ("pasta", "pantry", 99, 229),
]
TAX_RATES = [Fraction(5), Fraction(6), Fraction(25, 4), Fraction(7), Fraction(15, 2), Fraction(35, 4), Fraction(8)]


def cents_text(value):
    cents = int(value * 100)
    return f"{cents // 100}.{cents % 100:02d}"


def round_cents(value):
    return Fraction(int((value * 100 + Fraction(1, 2)) // 1), 100)


def parse_money(text):
    cleaned = re.sub(r"\\text\{([^{}]*)\}", r"\1", text).replace("\\$", "$").strip()
    match = re.fullmatch(r"(?:US)?\$?\s*(-?\d+(?:\.\d+)?)\s*(?:\$|dollars?|usd)?", cleaned, re.IGNORECASE)
    return to_number(match.group(1)) if match else to_number(cleaned)


class ShopReceiptCents:
    def __init__(self, items=4, steps=5):
        self.n_items = items
        self.n_steps = steps
        self.lines = []
        self.steps = []
        self.story = ""
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        picks = rng.sample(CATALOG, self.n_items)
        self.lines = [(name, cat, rng.randint(1, 4), rng.randint(lo, hi)) for name, cat, lo, hi in picks]
        category = rng.choice([line[1] for line in self.lines])
        pct = rng.choice([5, 10, 12, 15, 20, 25])
        tax = rng.choice(TAX_RATES)
        subtotal = sum(Fraction(q * c, 100) for _, _, q, c in self.lines)
        base = sum(Fraction(q * c, 100) for _, cat, q, c in self.lines if cat == category)
        discount = round_cents(base * pct / 100)
        if discount == 0:
            discount = Fraction(1, 100)
        tax_amount = round_cents((subtotal - discount) * tax / 100)
        total = subtotal - discount + tax_amount
        cash = (int(total) // 20 + 1) * 20
        self.steps = [
            ("What is the subtotal of all lines before discount and tax?", subtotal,
             "Each line costs quantity times unit price; add every line."),
            (f"The member discount is {pct}% off the {category} lines only (rounded half up to the cent). How "
             f"much is it?", discount, "Add only the lines of that category, then take the percentage."),
            (f"Sales tax is {tax.numerator / tax.denominator:g}% of (subtotal minus discount), rounded half up to "
             f"the cent. How much tax is charged?", tax_amount, "Tax applies after the discount; round at the end."),
            ("What is the total to pay?", total, "Total = subtotal - discount + tax."),
            (f"The customer pays with ${cash} cash. How much change is due?", cash - total,
             "Change is the cash tendered minus the total."),
        ][: self.n_steps]
        receipt = "\n".join(f"  {name:<14} [{cat}]  {q} x ${cents_text(Fraction(c, 100))}"
                            for name, cat, q, c in self.lines)
        self.story = f"Receipt:\n{receipt}"
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False
        obs = (f"{self.story}\nAnswer {len(self.steps)} questions in order, one per turn, as \\boxed{{amount}} in "
               f"dollars exact to the cent (e.g. \\boxed{{12.05}}). {ATTEMPTS} tries per question.\n{self.question()}")
        return obs, {"step": 0}

    def question(self):
        return f"Question {self.index + 1}/{len(self.steps)}: {self.steps[self.index][0]}"

    def step(self, action):
        self.turns = self.turns + 1
        obs, reward, terminated, truncated, info = self.play(action)
        if not terminated and self.turns >= ENV_SPEC["max_turns"]:
            self.done = True
            truncated = True
            obs = f"{obs}\nOut of turns."
        return obs, reward, terminated, truncated, info

    def play(self, action):
        if self.done:
            return "The receipt is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action if isinstance(action, str) else "")
        value = parse_money(given) if given is not None else None
        if value is None:
            obs = f"No dollar amount found: reply like \\boxed{{12.05}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected \\boxed{amount in dollars}", "step": self.index}
        expected = self.steps[self.index][1]
        if value == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. The receipt is fully worked out.", reward, True, False, {"success": True,
                                                                                        "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"${safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if abs(value - expected) < Fraction(5, 100):
            note = f"{note} (off by less than five cents: check the rounding)"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this question.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done or not self.steps:
            return "Keep every amount exact to the cent."
        hint = f"Work in whole cents to avoid drift. {self.steps[self.index][2]}"
        for item in self.steps:
            if mentions_answer(hint, cents_text(item[1])):
                return "Work in whole cents and round only where the question says so."
        return hint

    def reference_action(self):
        if self.done or not self.steps:
            return "\\boxed{0.01}"
        return f"\\boxed{{{cents_text(self.steps[self.index][1])}}}"
