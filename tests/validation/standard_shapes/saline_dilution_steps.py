# shape: multi-step derivation with units (grams, % w/v, C1V1 = C2V2 water to add, whole doses, mg per dose), stated tolerances
"""Multi-turn derivation: mix two stock solutions, find the mix strength, dilute to a target, then portion it."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, normalize_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "SalineDilutionSteps",
    "domain": "math",
    "description": (
        "A pharmacy technician mixes two stock solutions of known volume and % w/v strength, then dilutes the mix "
        "with water to a target strength and fills doses. The agent derives it one step per turn: grams of "
        "solute, the strength of the mix, the water to add, then (at higher difficulty) the number of full doses "
        "and the milligrams per dose. Each step states its unit and tolerance; three tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 18,
    "players": 1,
    "difficulty": {
        "steps": {"min": 3, "max": 5, "default": 4, "description": "steps of the derivation to answer"},
        "awkward": {"min": 0, "max": 1, "default": 1, "description": "1: volumes and strengths that do not divide evenly"},
    },
    "grounding": (
        "Pharmacy calculations: % w/v means grams of solute per 100 mL of solution; mixing conserves solute "
        "(alligation), dilution keeps the grams of solute while the volume grows (C1 V1 = C2 V2); doses are the "
        "whole number of full portions of the final volume."
    ),
    "tags": ["math", "word-problem", "units", "multi-step", "chemistry"],
}

ATTEMPTS = 3
NUMBER = re.compile(r"^\s*([-+]?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:[A-Za-z%\\ ]*)$")


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


def pct(value):
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return text


class SalineDilutionSteps:
    def __init__(self, steps=4, awkward=1):
        self.n_steps = steps
        self.awkward = awkward
        self.vol_a = 0
        self.conc_a = Fraction(0)
        self.vol_b = 0
        self.conc_b = Fraction(0)
        self.target = Fraction(0)
        self.dose = 0
        self.answers = []
        self.tols = []
        self.units = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        for _ in range(200):
            if self.awkward:
                self.vol_a = rng.choice([120, 150, 175, 225, 240, 330])
                self.vol_b = rng.choice([80, 130, 160, 250, 270, 410])
                self.conc_a = Fraction(rng.choice([45, 60, 75, 90, 125, 150, 200]), 10)
                self.conc_b = Fraction(rng.choice([5, 9, 15, 20, 25, 35]), 10)
            else:
                self.vol_a = rng.choice([100, 200, 300, 400])
                self.vol_b = rng.choice([100, 200, 300])
                self.conc_a = Fraction(rng.choice([5, 10, 15, 20]))
                self.conc_b = Fraction(rng.choice([1, 2, 3]))
            grams = self.vol_a * self.conc_a / 100 + self.vol_b * self.conc_b / 100
            mix = grams * 100 / (self.vol_a + self.vol_b)
            self.target = Fraction(rng.choice([9, 15, 20, 25, 30, 45]), 10)
            if self.target < mix * Fraction(4, 5) and self.target > self.conc_b / 2:
                break
        grams_a = self.vol_a * self.conc_a / 100
        grams = grams_a + self.vol_b * self.conc_b / 100
        volume = Fraction(self.vol_a + self.vol_b)
        mix = grams * 100 / volume
        final_volume = grams * 100 / self.target
        water = final_volume - volume
        self.dose = rng.choice([15, 20, 25, 30, 50])
        doses = int(final_volume // self.dose)
        mg = self.target / 100 * self.dose * 1000
        self.answers = [grams_a, mix, water, Fraction(doses), mg][: self.n_steps]
        self.tols = [Fraction(1, 100), Fraction(1, 100), Fraction(1, 2), Fraction(0), Fraction(1, 2)]
        self.units = ["g", "% w/v", "mL", "doses", "mg"]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"Stock solution A: {self.vol_a} mL at {pct(self.conc_a)}% w/v. Stock solution B: {self.vol_b} mL at "
            f"{pct(self.conc_b)}% w/v (same solute). All of A and all of B are mixed; then pure water is added "
            f"until the strength is exactly {pct(self.target)}% w/v; the result is then portioned into "
            f"{self.dose} mL doses. Assume volumes simply add.\n"
            "Answer one step at a time as \\boxed{number} (a unit may follow the number).\n" + self.question()
        )
        return obs, {"step": 0, "steps": len(self.answers)}

    def question(self):
        qs = [
            "Step 1: grams of solute contained in solution A (within 0.01 g).",
            "Step 2: the strength of the A+B mix before any water, in % w/v (within 0.01 percentage points).",
            "Step 3: millilitres of water to add to reach the target strength (within 0.5 mL).",
            "Step 4: how many FULL doses the diluted solution fills (a whole number).",
            "Step 5: milligrams of solute in one dose (within 0.5 mg).",
        ]
        return qs[self.index]

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given, value = read_number(action)
        if value is None:
            error = f"expected one number (in {self.units[self.index]}) such as \\boxed{{12.5}}"
            return f"Format error: {error}.\n{self.question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        expected = self.answers[self.index]
        if abs(value - expected) <= self.tols[self.index]:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.answers)
            if self.index == len(self.answers):
                self.done = True
                return "Correct. The preparation is fully worked out.", reward, True, False, {
                    "success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this step.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}", 0.0, False, False, {
            "success": False, "step": self.index}

    def privileged_hint(self):
        hints = [
            "% w/v is grams per 100 mL, so grams = volume in mL x strength / 100.",
            "Solute is conserved when mixing: add the grams from both stocks and divide by the combined volume, "
            "then express per 100 mL.",
            "Dilution keeps the grams: the final volume is grams x 100 / target strength; the water is that "
            "minus the volume you already have.",
            "Divide the final volume (mix plus water) by the dose size and round DOWN; a partial dose does not count.",
            "A dose holds target strength / 100 x dose volume grams; convert grams to milligrams.",
        ]
        hint = hints[min(self.index, len(hints) - 1)]
        if self.answers and not self.done and mentions_answer(hint, pct(self.answers[self.index])):
            return "Track grams of solute separately from the volume; it only changes when stocks are combined."
        return hint

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1}"
        value = self.answers[self.index]
        if value.denominator == 1:
            return f"\\boxed{{{value.numerator}}}"
        return f"\\boxed{{{float(value):.4f}}}"
