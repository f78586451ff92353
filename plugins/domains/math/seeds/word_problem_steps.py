"""A multi-step word problem asked one intermediate quantity per turn, each checked before the next."""

from fractions import Fraction

from spade_domains.math.verify import answers_match, extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "WordProblemSteps",
    "domain": "math",
    "description": (
        "A GSM8K-style word problem (trip, bakery or wages) solved one intermediate quantity per turn; a wrong "
        "step is flagged as too high or too low and may be retried twice."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "steps": {"min": 2, "max": 5, "default": 4, "description": "chained quantities to compute"},
    },
    "grounding": (
        "Grade-school multi-step arithmetic word problems (as in GSM8K): distance = speed x time, "
        "percentages of a total, revenue = quantity x unit price, profit = revenue - cost, net pay after tax."
    ),
    "tags": ["word-problem", "arithmetic", "multi-step", "percent"],
}

ATTEMPTS = 3


def fmt(value):
    """An exact Fraction as an integer, a terminating decimal or a/b."""
    if value.denominator == 1:
        return str(value.numerator)
    for places in range(1, 7):
        scaled = value * (10 ** places)
        if scaled.denominator == 1:
            text = str(abs(scaled.numerator)).rjust(places + 1, "0")
            sign = "-" if value < 0 else ""
            return f"{sign}{text[:-places]}.{text[-places:]}"
    return f"{value.numerator}/{value.denominator}"


def trip_problem(rng):
    v = rng.choice([40, 48, 50, 60, 64, 72, 80, 90])
    t1 = rng.choice([2, 3, 4])
    w = rng.choice([30, 45, 55, 70, 75, 100])
    t2 = rng.choice([1, 2, 3])
    use = rng.choice([5, 6, 7, 8, 9])
    price = Fraction(rng.choice([150, 160, 175, 180, 190, 200]), 100)
    d1 = Fraction(v * t1)
    total = d1 + w * t2
    avg = total / (t1 + t2)
    fuel = total * use / 100
    cost = fuel * price
    story = (
        f"A driver travels {t1} hours at {v} km/h, then {t2} hours at {w} km/h. The car uses {use} litres of fuel "
        f"per 100 km and fuel costs ${fmt(price)} per litre."
    )
    steps = [
        ("How many km does the driver cover in the first part?", d1, "Distance is speed multiplied by time."),
        ("What is the total distance in km?", total, "Add the distances of the two parts."),
        ("What is the average speed over the whole trip in km/h (exact value)?", avg,
         "Average speed is total distance divided by total time, not the mean of the two speeds."),
        ("How many litres of fuel are used for the whole trip?", fuel,
         "Scale the consumption per 100 km to the total distance."),
        ("How much does the fuel cost in dollars?", cost, "Multiply the litres used by the price per litre."),
    ]
    return story, steps


def bakery_problem(rng):
    trays = rng.randint(3, 9)
    per_tray = rng.choice([12, 16, 20, 24])
    pct = rng.choice([25, 50, 75])
    price = Fraction(rng.choice([125, 150, 175, 200, 250]), 100)
    unit_cost = Fraction(rng.choice([40, 50, 60, 75]), 100)
    total = Fraction(trays * per_tray)
    sold = total * pct / 100
    revenue = sold * price
    cost = total * unit_cost
    profit = revenue - cost
    story = (
        f"A bakery bakes {trays} trays of {per_tray} muffins. It sells {pct}% of the muffins at ${fmt(price)} each; "
        f"each muffin costs ${fmt(unit_cost)} to make (sold or not)."
    )
    steps = [
        ("How many muffins are baked?", total, "Multiply the number of trays by the muffins per tray."),
        ("How many muffins are sold?", sold, "Take the stated percentage of all muffins baked."),
        ("What is the revenue in dollars?", revenue, "Revenue is muffins sold times the price of one."),
        ("What does it cost to make all the muffins, in dollars?", cost,
         "Every muffin baked costs the same to make."),
        ("What is the profit in dollars (negative for a loss)?", profit, "Profit is revenue minus cost."),
    ]
    return story, steps


def wages_problem(rng):
    rate = rng.choice([12, 15, 18, 20, 22, 25])
    hours = rng.choice([4, 5, 6, 7, 8])
    days = rng.choice([3, 4, 5, 6])
    tax = rng.choice([10, 15, 20, 25])
    rent = rng.choice([150, 200, 250, 300])
    daily = Fraction(rate * hours)
    gross = daily * days
    tax_paid = gross * tax / 100
    net = gross - tax_paid
    left = net - rent
    story = (
        f"A worker earns ${rate} per hour, works {hours} hours a day for {days} days, pays {tax}% tax on the "
        f"gross pay and then ${rent} of rent."
    )
    steps = [
        ("What is the pay for one day in dollars?", daily, "Hourly rate times hours worked in a day."),
        ("What is the gross pay for all the days?", gross, "Multiply the daily pay by the number of days."),
        ("How much tax is paid, in dollars?", tax_paid, "Tax is the stated percentage of the gross pay."),
        ("What is the pay after tax?", net, "Subtract the tax from the gross pay."),
        ("How much is left after paying the rent?", left, "Subtract the rent from the pay after tax."),
    ]
    return story, steps


PROBLEMS = [trip_problem, bakery_problem, wages_problem]


class WordProblemSteps:
    def __init__(self, steps=4):
        self.n_steps = steps
        self.story = ""
        self.steps = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        make = rng.choice(PROBLEMS)
        self.story, all_steps = make(rng)
        self.steps = all_steps[: self.n_steps]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"{self.story}\nAnswer {len(self.steps)} questions in order, one per turn, each as \\boxed{{value}} "
            f"(fractions like 7/2 are fine). You have {ATTEMPTS} tries per question.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        return f"Question {self.index + 1}/{len(self.steps)}: {self.steps[self.index][0]}"

    def step(self, action):
        given = extract_answer(action)
        if given is None:
            obs = f"No answer found: write it as \\boxed{{value}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "no \\boxed{} or 'Answer:' found", "step": self.index}
        expected = self.steps[self.index][1]
        if answers_match(given, fmt(expected)):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. All questions answered.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is not right"
        value = to_number(given)
        if value is not None:
            note = f"{note}: it is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            obs = f"{note}. Out of tries for this question; the value was {fmt(expected)}."
            return obs, 0.0, True, False, {"success": False, "step": self.index}
        left = ATTEMPTS - self.attempts
        obs = f"{note}. {left} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done or not self.steps:
            return "Each question builds on the previous results."
        hint = f"Each question builds on the previous results. For this one: {self.steps[self.index][2]}"
        for item in self.steps:
            if mentions_answer(hint, fmt(item[1])):
                return "Each question builds on the previous results; keep exact values."
        return hint

    def reference_action(self):
        if self.done or not self.steps:
            return "\\boxed{0}"
        return f"\\boxed{{{fmt(self.steps[self.index][1])}}}"

