# expect: accepted
"""Compare shelf prices: the price per kilogram of a pack, in euros to the cent, as shelf labels print it."""

import re

ENV_SPEC = {
    "name": "ShelfUnitPrice",
    "domain": "math",
    "description": "Work out a pack's price per kilogram from its price and weight, as a shelf label shows it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"grams": {"min": 100, "max": 5000, "default": 2000, "description": "heaviest pack in grams"}},
    "grounding": "Unit pricing: price per kilogram = pack price / pack weight in kilograms, shown to the cent.",
    "tags": ["money", "rates", "division"],
}

WEIGHTS = [125, 200, 250, 400, 500, 625, 750, 800, 1000, 1250, 1500, 2000, 2500, 4000, 5000]
EUROS = re.compile(r"^\s*(?:€\s*)?(\d+(?:\.\d{1,2})?)\s*(?:€|eur|euros?)?\s*(?:/\s*kg|per kg)?\s*\.?\s*$", re.IGNORECASE)


class ShelfUnitPrice:
    def __init__(self, grams=2000):
        self.weights = [w for w in WEIGHTS if w <= grams] or WEIGHTS[:1]
        self.grams = 0
        self.cents = 0
        self.tries = 2

    def reset(self, rng, options):
        self.grams = rng.choice(self.weights)
        # a price whose per-kilogram figure is a whole number of cents: a multiple of grams / gcd(grams, 1000)
        step = self.grams // _gcd(self.grams, 1000)
        self.cents = step * rng.randint(max(1, 60 // step), max(2, 4000 // step))
        self.tries = 2
        return (f"A {self.grams} g pack costs {self.cents / 100:.2f} euros. What price per kilogram does the shelf "
                "label show? Answer like 7.35 €/kg (two tries)."), {}

    def per_kilo_cents(self):
        return self.cents * 1000 // self.grams

    def step(self, action):
        found = EUROS.match(action)
        if found is None:
            return "Answer with a price per kilogram, e.g. 7.35 €/kg.", 0.0, False, False, {
                "format_error": "expected a price such as 7.35 €/kg"}
        self.tries = self.tries - 1
        ok = round(float(found.group(1)) * 100) == self.per_kilo_cents()
        if ok:
            return "That is the label price.", 1.0, True, False, {"success": True}
        done = self.tries == 0
        return ("That is not the label price" + (", and no tries are left." if done else ". One try left.")), \
            0.0, done, False, {"success": False}

    def privileged_hint(self):
        return f"{self.grams} g is {self.grams / 1000:g} kg: divide the pack price by that."

    def reference_action(self):
        return f"{self.per_kilo_cents() / 100:.2f} €/kg"


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a
