# expect: accepted
"""Track a loaf's price in assignats month by month as the paper money loses value (multiple choice)."""

from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "AssignatPriceChoice",
    "domain": "math",
    "description": (
        "A four-pound loaf costs a known number of sous paid in assignats; each month prices in assignats rise by a "
        "stated percentage and are rounded to the nearest sou. For each month pick the right price among five options."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "months": {"min": 2, "max": 6, "default": 5, "description": "months to compound, one question each"},
        "rate_high": {"min": 6, "max": 30, "default": 15, "description": "largest monthly inflation percentage"},
    },
    "grounding": (
        "Assignats, the paper money of the Revolution issued from 1789 against confiscated church lands, lost value "
        "steadily through the 1790s, so prices quoted in assignats rose month after month (compound growth)."
    ),
    "tags": ["percent", "compound-growth", "multiple-choice", "multi-step"],
}

LETTERS = "ABCDE"
ATTEMPTS = 2


def round_half_up(value):
    return int((value * 2 + 1) // 2)


class AssignatPriceChoice:
    def __init__(self, months=5, rate_high=15):
        self.months = months
        self.rate_high = rate_high
        self.start = 0
        self.rates = []
        self.prices = []
        self.options = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        self.start = rng.randint(12, 60)
        self.rates = [rng.randint(4, self.rate_high) for _ in range(self.months)]
        self.prices = []
        price = self.start
        for rate in self.rates:
            price = round_half_up(Fraction(price * (100 + rate), 100))
            self.prices.append(price)
        self.options = []
        for price in self.prices:
            gap = max(1, price // 12)
            below = rng.randint(0, 4)
            offsets = [-k for k in rng.sample([1, 2, 3, 4, 5], below)] + rng.sample([1, 2, 3, 4, 5], 4 - below)
            values = [price] + [price + k * gap for k in offsets]
            rng.shuffle(values)
            self.options.append(values)
        self.index = 0
        self.attempts = 0
        self.done = False
        rates = ", ".join(f"month {i + 1}: +{r}%" for i, r in enumerate(self.rates))
        obs = (
            f"In the spring of 1793 a four-pound loaf costs {self.start} sous in assignats. Prices in assignats rise "
            f"each month by these percentages ({rates}); after each month's rise the price is rounded to the nearest "
            f"sou (halves up), and the next month's rise applies to the rounded price. Answer each question with the "
            f"right option's price in sous, e.g. \\boxed{{45}}. {ATTEMPTS} tries per question.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        opts = "  ".join(f"({LETTERS[i]}) {v} sous" for i, v in enumerate(self.options[self.index]))
        return f"Question {self.index + 1}/{self.months}: the loaf's price after month {self.index + 1}?\n{opts}"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with the price in sous of one option, as \\boxed{{n}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number of sous in \\boxed{}", "step": self.index}
        if value == self.prices[self.index]:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.months
            if self.index == self.months:
                self.done = True
                return "Correct. That is the final price.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        if self.attempts >= ATTEMPTS:
            self.done = True
            obs = f"{safe_echo(given)} sous is not right and you are out of tries for this question."
            return obs, 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{safe_echo(given)} sous is not right. {ATTEMPTS - self.attempts} try left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        return (
            "Multiply the previous month's rounded price by (100 + rate)/100, round to the nearest sou with halves "
            "going up, and use that rounded value for the next month."
        )

    def reference_action(self):
        if self.done or not self.prices:
            return "\\boxed{1}"
        return "\\boxed{" + str(self.prices[self.index]) + "}"
