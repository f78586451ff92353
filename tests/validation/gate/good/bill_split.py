# expect: accepted
"""Split a restaurant bill: the total with a tip, shared equally, to the cent (amounts are whole cents, so the share
is exact to the cent once rounded up)."""

import re

ENV_SPEC = {
    "name": "BillSplitCents",
    "domain": "math",
    "description": "Share a restaurant bill with a tip equally between diners; answer each diner's share in euros "
                   "to the cent.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"diners": {"min": 2, "max": 12, "default": 6, "description": "most diners at the table"}},
    "grounding": "Splitting a bill: add the tip to the total, divide by the diners, and round each share up to "
                 "the next cent so the bill is covered.",
    "tags": ["money", "division", "rounding"],
}

AMOUNT = re.compile(r"^\s*(?:€\s*)?(-?\d+(?:\.\d{1,2})?)\s*(?:€|eur|euros?)?\s*\.?\s*$", re.IGNORECASE)


class BillSplitCents:
    def __init__(self, diners=6):
        self.most = diners
        self.cents = 0
        self.tip = 0
        self.diners = 2
        self.tries = 2

    def reset(self, rng, options):
        self.cents = rng.randint(2000, 40000)
        self.tip = rng.choice([0, 5, 10, 12, 15, 18, 20])
        self.diners = rng.randint(2, self.most)
        self.tries = 2
        return (f"The bill is {self.cents / 100:.2f} euros and the table adds a {self.tip}% tip. "
                f"{self.diners} diners share it equally, each share rounded up to the next cent. "
                "How much does each diner pay? Answer in euros, e.g. 12.34 (two tries)."), {}

    def share_cents(self):
        total = self.cents * (100 + self.tip)  # in hundredths of a cent
        return -(-total // (100 * self.diners))

    def step(self, action):
        found = AMOUNT.match(action)
        if found is None:
            return "Answer with an amount in euros, e.g. 12.34.", 0.0, False, False, {
                "format_error": "expected an amount such as 12.34"}
        self.tries = self.tries - 1
        paid = round(float(found.group(1)) * 100)
        if paid == self.share_cents():
            return "That covers it exactly.", 1.0, True, False, {"success": True}
        if self.tries == 0:
            return "That is not the share, and no tries are left.", 0.0, True, False, {"success": False}
        return "That is not the share. One try left.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        with_tip = self.cents * (100 + self.tip) / 10000
        return f"With the tip the bill is {with_tip:.4f} euros; divide by {self.diners} and round up to the cent."

    def reference_action(self):
        return f"{self.share_cents() / 100:.2f}"
