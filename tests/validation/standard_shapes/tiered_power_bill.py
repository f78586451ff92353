# shape: GSM8K-style multi-step word problem with units (Wh to kWh, two tariff tiers, service charge and tax), a stated tolerance per step
"""GSM8K-style multi-step word problem with units: a household electricity bill under a two-tier tariff."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, normalize_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "TieredPowerBill",
    "domain": "math",
    "description": (
        "A household runs a few appliances (power in watts, hours per day) over a billing period. The agent works "
        "the bill out step by step: energy in kWh, the energy charge under a two-tier tariff, then the total with "
        "a daily service charge and sales tax (and, at higher difficulty, the average cost per kWh). Each step "
        "states its unit and tolerance; a wrong answer gets too high / too low and a units check, three tries."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "appliances": {"min": 2, "max": 5, "default": 3, "description": "appliances whose energy must be summed"},
        "steps": {"min": 3, "max": 4, "default": 3, "description": "3: kWh, energy charge, total; 4: + cents/kWh"},
    },
    "grounding": (
        "Residential electricity billing: energy (kWh) = power (W) x hours / 1000; inclining block (tiered) "
        "tariffs charge a first block of kWh at one rate and the rest at a higher rate; a fixed daily supply "
        "charge and a sales tax on the whole bill; the effective rate is the bill divided by the energy used."
    ),
    "tags": ["math", "word-problem", "units", "multi-step", "rounding"],
}

APPLIANCES = [
    ("refrigerator", [120, 150, 180], [24]),
    ("electric kettle", [1500, 2000, 2200], [Fraction(1, 4), Fraction(1, 2)]),
    ("space heater", [750, 1000, 1500], [2, 3, 4, 5]),
    ("television", [80, 100, 150], [3, 4, 5, 6]),
    ("washing machine", [500, 800], [1, Fraction(3, 2)]),
    ("desktop computer", [200, 250, 300], [4, 6, 8]),
    ("air conditioner", [900, 1200, 1800], [4, 6, 8]),
    ("LED lighting", [40, 60], [5, 6, 8]),
]
ATTEMPTS = 3
NUMBER = re.compile(r"^\s*(?:\\?\$)?\s*([-+]?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:[A-Za-z/%\\ ]*)$")


def read_number(text):
    given = extract_answer(text)
    if given is None:
        return None, None
    value = to_number(normalize_answer(given))
    if value is None:
        m = NUMBER.match(given)
        if m:
            value = to_number(m.group(1).replace(",", ""))
    return given, value


def hours_text(h):
    if h == Fraction(1, 4):
        return "15 minutes"
    if h == Fraction(1, 2):
        return "30 minutes"
    if h == Fraction(3, 2):
        return "1.5 hours"
    if h == 1:
        return "1 hour"
    return f"{h} hours"


class TieredPowerBill:
    def __init__(self, appliances=3, steps=3):
        self.n_appliances = appliances
        self.n_steps = steps
        self.items = []
        self.days = 30
        self.block = 0
        self.rate1 = 0
        self.rate2 = 0
        self.service = 0
        self.tax = 0
        self.answers = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        picks = rng.sample(APPLIANCES, self.n_appliances)
        self.items = [(name, rng.choice(watts), rng.choice(hours)) for name, watts, hours in picks]
        self.days = rng.choice([28, 30, 31])
        energy = sum(Fraction(w) * h * self.days / 1000 for _, w, h in self.items)
        self.block = rng.choice([100, 150, 200, 250, 300, 400, 500])
        while self.block >= energy and self.block > 50:
            self.block = self.block - 50
        self.rate1 = rng.choice([11, 12, 13, 14, 15, 16])
        self.rate2 = self.rate1 + rng.choice([3, 4, 5, 6, 8])
        self.service = rng.choice([25, 30, 35, 40, 45])
        self.tax = rng.choice([4, 5, 6, 7, 8])
        first = min(energy, Fraction(self.block))
        charge = (first * self.rate1 + (energy - first) * self.rate2) / 100
        total = (charge + Fraction(self.service * self.days, 100)) * (1 + Fraction(self.tax, 100))
        self.answers = [energy, charge, total]
        if self.n_steps >= 4:
            self.answers.append(total * 100 / energy)
        self.index = 0
        self.attempts = 0
        self.done = False
        lines = "\n".join(f"  - a {w} W {name}, {hours_text(h)} per day" for name, w, h in self.items)
        obs = (
            f"A household's billing period is {self.days} days. Every day it runs:\n{lines}\n"
            f"Tariff: the first {self.block} kWh of the period cost {self.rate1} cents per kWh; every kWh beyond "
            f"that costs {self.rate2} cents. There is a service charge of {self.service} cents per day, and "
            f"{self.tax}% sales tax is added to the whole bill (energy plus service charge).\n"
            "Answer one step at a time as \\boxed{number} (units may follow the number).\n" + self.question()
        )
        return obs, {"step": 0, "steps": len(self.answers)}

    def question(self):
        qs = [
            "Step 1: the household's total energy use over the period, in kWh (within 0.01 kWh).",
            "Step 2: the energy charge before the service charge and tax, in dollars (within $0.01).",
            "Step 3: the total bill including the service charge and tax, in dollars (within $0.01).",
            "Step 4: the effective price, total bill divided by energy, in cents per kWh (within 0.01 cents).",
        ]
        return qs[self.index]

    def _tolerance(self):
        return Fraction(1, 100)

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given, value = read_number(action)
        if value is None:
            error = "expected one number such as \\boxed{12.34}"
            obs = f"Format error: {error}.\n{self.question()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "step": self.index}
        expected = self.answers[self.index]
        if abs(value - expected) <= self._tolerance():
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.answers)
            if self.index == len(self.answers):
                self.done = True
                return "Correct. The bill is fully worked out.", reward, True, False, {"success": True,
                                                                                       "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        ratio = value / expected if expected else Fraction(0)
        for factor, unit in [(1000, "watt-hours vs kilowatt-hours"), (100, "cents vs dollars")]:
            if abs(ratio - factor) < Fraction(1, 20) or (ratio and abs(1 / ratio - factor) < Fraction(1, 20)):
                note = note + f" (check your units: {unit})"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this step.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        hints = [
            "For each appliance multiply watts by hours per day and by the number of days, add them up, then "
            "divide by 1000 to get kWh; minutes must be turned into fractions of an hour first.",
            "Only the part of the energy above the first block is charged at the higher rate; charge the block "
            "at the lower rate, the remainder at the higher one, and convert cents to dollars.",
            "Add the service charge for every day of the period to the energy charge, then multiply the sum by "
            "(1 + tax rate); the tax applies to both parts.",
            "Divide the total bill, converted to cents, by the kWh from step 1.",
        ]
        hint = hints[min(self.index, len(hints) - 1)]
        if self.answers and not self.done and mentions_answer(hint, str(float(self.answers[self.index]))):
            return "Work in consistent units and keep full precision until the final rounding."
        return hint

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1}"
        return f"\\boxed{{{float(self.answers[self.index]):.6f}}}"
