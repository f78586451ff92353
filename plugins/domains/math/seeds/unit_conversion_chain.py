"""Carry a quantity through a chain of unit conversions, one conversion per turn."""

from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "UnitConversionChain",
    "domain": "math",
    "description": (
        "Convert a length, mass, volume or duration through a chain of units, one step per turn; answers within "
        "0.1% are accepted and a wrong one is flagged too high or too low."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "steps": {"min": 2, "max": 6, "default": 4, "description": "conversions in the chain"},
    },
    "grounding": (
        "Exact SI and US customary definitions (NIST Handbook 44): 1 in = 2.54 cm, 1 ft = 12 in, 1 yd = 3 ft, "
        "1 mi = 1760 yd, 1 lb = 0.45359237 kg, 1 st = 14 lb, 1 lb = 16 oz, 1 oz = 16 dr, 1 dr = 27.34375 gr, "
        "1 US gal = 3.785411784 L = 4 qt, 1 qt = 2 pt, 1 pt = 2 cups, 1 cup = 8 fl oz, 1 fl oz = 2 tbsp, "
        "1 tbsp = 3 tsp; dimensional analysis multiplies by conversion factors equal to one."
    ),
    "tags": ["units", "dimensional-analysis", "measurement", "multi-step"],
}

ATTEMPTS = 3
TOLERANCE = 1e-3

# Each ladder: units from large to small; FACTORS[i] = how many of unit i+1 make one of unit i.
LADDERS = [
    ("length", ["km", "m", "cm", "in", "ft", "yd", "mi"],
     [Fraction(1000), Fraction(100), Fraction(100, 254), Fraction(1, 12), Fraction(1, 3), Fraction(1, 1760)]),
    ("mass", ["t", "kg", "st", "lb", "oz", "dr", "gr"],
     [Fraction(1000), Fraction(100000000, 635029318), Fraction(14), Fraction(16), Fraction(16),
      Fraction(2734375, 100000)]),
    ("volume", ["L", "gal", "qt", "pt", "cup", "fl oz", "tbsp", "tsp"],
     [Fraction(1000000000, 3785411784), Fraction(4), Fraction(2), Fraction(2), Fraction(8), Fraction(2),
      Fraction(3)]),
    ("duration", ["fortnight", "week", "day", "h", "min", "s", "ms"],
     [Fraction(2), Fraction(7), Fraction(24), Fraction(60), Fraction(60), Fraction(1000)]),
]


def show(value):
    """A readable decimal for an exact value (up to 6 significant decimals)."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.10g}"
    return text


def relation(units, factors, i):
    """'1 big = f small' for the edge between units[i] and units[i+1]."""
    factor = factors[i]
    if factor >= 1:
        return f"1 {units[i]} = {show(factor)} {units[i + 1]}"
    return f"1 {units[i + 1]} = {show(1 / factor)} {units[i]}"


class UnitConversionChain:
    def __init__(self, steps=4):
        self.n_steps = steps
        self.kind = ""
        self.chain = []
        self.values = []
        self.edges = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        kind, units, factors = rng.choice(LADDERS)
        edges = len(factors)
        start = rng.randint(0, edges - self.n_steps)
        forward = rng.random() < 0.5
        positions = [start + k for k in range(self.n_steps + 1)]
        if not forward:
            positions = [edges - p for p in positions]
        quantity = Fraction(rng.randint(2, 40) * rng.choice([1, 1, 5, 25]), rng.choice([1, 1, 2, 4]))
        values = [quantity]
        self.edges = []
        for k in range(self.n_steps):
            a, b = positions[k], positions[k + 1]
            if b > a:
                values.append(values[-1] * factors[a])
                self.edges.append(relation(units, factors, a))
            else:
                values.append(values[-1] / factors[b])
                self.edges.append(relation(units, factors, b))
        self.kind = kind
        self.chain = [units[p] for p in positions]
        self.values = values
        self.index = 0
        self.attempts = 0
        self.done = False
        route = " -> ".join(self.chain)
        obs = (
            f"Start with {show(quantity)} {self.chain[0]} ({kind}). Convert along the route {route}, one unit per "
            f"turn; reply with the value in the new unit as \\boxed{{value}} (within 0.1%).\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        return (
            f"Step {self.index + 1}/{self.n_steps}: express the quantity in {self.chain[self.index + 1]} "
            f"(it is {show(self.values[self.index])} {self.chain[self.index]})."
        )

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{value}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.values[self.index + 1]
        if abs(value - expected) <= TOLERANCE * abs(expected):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.n_steps
            if self.index == self.n_steps:
                self.done = True
                return "Correct. Conversion chain complete.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        ratio = "too high" if value > expected else "too low"
        note = f"{safe_echo(given)} {self.chain[self.index + 1]} is {ratio}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            obs = f"{note}. Out of tries; it was {show(expected)} {self.chain[self.index + 1]}."
            return obs, 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        generic = "Multiply by the factor when going to a smaller unit and divide when going to a larger one."
        if self.done or not self.edges:
            return generic
        hint = f"Use {self.edges[self.index]} (exact). {generic}"
        for v in self.values[1:]:
            if mentions_answer(hint, show(v)) or mentions_answer(hint, f"{v.numerator}/{v.denominator}"):
                return generic
        return hint

    def reference_action(self):
        if self.done or not self.values:
            return "\\boxed{0}"
        # seven significant digits: well inside the 0.1% tolerance
        return f"\\boxed{{{float(self.values[self.index + 1]):.6e}}}"
