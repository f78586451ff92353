# shape: exact-fraction probabilities (hypergeometric) asked one step at a time; decimals only if exactly equal; ...
"""Exact probabilities for draws without replacement, asked one at a time; answers are exact fractions."""

from fractions import Fraction
from math import comb

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "MarbleDrawFractions",
    "domain": "math",
    "description": (
        "A bag holds red, blue and green marbles; some are drawn at once (without replacement). Give five exact "
        "probabilities in turn (first-draw red, all red, all one colour, at least one green, one of a stated mix) "
        "as fractions; decimals count only if exactly equal. Two tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 15,
    "players": 1,
    "difficulty": {
        "draws": {"min": 2, "max": 4, "default": 3, "description": "marbles drawn together"},
        "max_per_colour": {"min": 5, "max": 14, "default": 8, "description": "largest count of one colour"},
    },
    "grounding": (
        "Classical probability for sampling without replacement (hypergeometric counts): favourable subsets over "
        "C(N, d), the complement rule for 'at least one', and the addition rule over disjoint colour cases."
    ),
    "tags": ["math", "probability", "combinatorics", "fractions", "multi-step"],
}

ATTEMPTS = 2


def frac_text(v):
    return f"{v.numerator}/{v.denominator}" if v.denominator != 1 else str(v.numerator)


class MarbleDrawFractions:
    def __init__(self, draws=3, max_per_colour=8):
        self.d = draws
        self.max_c = max_per_colour
        self.counts = [0, 0, 0]
        self.steps = []
        self.index = 0
        self.attempts = 0
        self.done = False
        self.story = ""

    def reset(self, rng, options):
        d = self.d
        while True:
            red = rng.randint(d, self.max_c)
            blue = rng.randint(1, self.max_c)
            green = rng.randint(1, self.max_c)
            if red + blue + green >= d + 3:
                break
        n = red + blue + green
        total = comb(n, d)
        self.counts = [red, blue, green]
        mix_red = rng.randint(1, min(red, d - 1))
        mix_blue = d - mix_red
        if mix_blue > blue:
            mix_blue = blue
            mix_red = d - blue
        mix_green = d - mix_red - mix_blue
        same = sum(comb(c, d) for c in self.counts)
        mix_p = Fraction(comb(red, mix_red) * comb(blue, mix_blue) * comb(green, mix_green), total)
        parts = [f"{mix_red} red", f"{mix_blue} blue"] + ([f"{mix_green} green"] if mix_green else [])
        self.story = (
            f"A bag holds {red} red, {blue} blue and {green} green marbles, well mixed. {d} marbles are drawn one "
            f"after another without putting any back."
        )
        self.steps = [
            ("What is the probability that the FIRST marble drawn is red?", Fraction(red, n),
             "Only the first draw matters here: favourable marbles over all marbles."),
            (f"What is the probability that all {d} marbles are red?", Fraction(comb(red, d), total),
             "Count unordered sets: ways to choose the reds over ways to choose any d marbles (or multiply the "
             "shrinking draw-by-draw fractions)."),
            (f"What is the probability that all {d} marbles have the same colour?", Fraction(same, total),
             "The three single-colour cases are disjoint: add their counts; a colour with fewer than d marbles "
             "contributes nothing."),
            ("What is the probability that at least one green marble is drawn?", 1 - Fraction(comb(n - green, d), total),
             "Use the complement: one minus the chance that every marble drawn is non-green."),
            (f"What is the probability of drawing exactly {' and '.join(parts)} (in any order)?", mix_p,
             "Multiply the ways to pick each colour's share, then divide by the ways to pick any d marbles."),
        ]
        self.index = 0
        self.attempts = 0
        self.done = False
        return self._question(), {"step": 0, "steps": len(self.steps)}

    def _question(self):
        return (
            f"{self.story}\nStep {self.index + 1}/{len(self.steps)}: {self.steps[self.index][0]} Give the exact "
            "value as a fraction (e.g. \\boxed{3/28}); a decimal is accepted only if exactly equal."
        )

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action) if isinstance(action, str) else None
        value = to_number(given.replace(" ", "")) if given is not None else None
        if value is None or value < 0 or value > 1:
            error = "expected an exact probability between 0 and 1, such as \\boxed{5/12}"
            return f"Format error: {error}.\n{self._question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        expected = self.steps[self.index][1]
        if value == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. All probabilities found.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self._question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        near = abs(value - expected) < Fraction(1, 1000)
        note = f"{safe_echo(given)} is " + ("close but not exact" if near else
                                            f"too {'high' if value > expected else 'low'}")
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {frac_text(expected)}.", 0.0, True, False, {
                "success": False, "step": self.index}
        return f"{note}. 1 try left.\n{self._question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done:
            return "The problem is finished."
        return self.steps[self.index][2]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return "\\boxed{" + frac_text(self.steps[self.index][1]) + "}"
