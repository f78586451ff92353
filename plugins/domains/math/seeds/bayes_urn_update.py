"""Refine a posterior probability draw by draw (Bayes' theorem with an urn model)."""

from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "BayesUrnUpdate",
    "domain": "math",
    "description": (
        "One urn is picked at random from two or three with known red/blue contents; balls are drawn with "
        "replacement. After each revealed draw, give the updated probability that urn A was picked."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "draws": {"min": 2, "max": 6, "default": 3, "description": "updates to make (one per revealed draw)"},
        "urns": {"min": 2, "max": 3, "default": 2, "description": "hypotheses to normalise over"},
    },
    "grounding": (
        "Bayes' theorem for discrete hypotheses: posterior is proportional to prior times likelihood; draws with "
        "replacement are independent given the urn, so each draw multiplies in one colour fraction and the "
        "posterior is renormalised (sequential Bayesian updating)."
    ),
    "tags": ["probability", "bayes", "estimation", "multi-step"],
}

ATTEMPTS = 3
TOLERANCE = Fraction(1, 1000)
NAMES = ["A", "B", "C"]


class BayesUrnUpdate:
    def __init__(self, draws=3, urns=2):
        self.n_draws = draws
        self.n_urns = urns
        self.priors = []
        self.reds = []
        self.sizes = []
        self.draws = []
        self.posteriors = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        sizes = [rng.choice([4, 5, 6, 8, 10]) for _ in range(self.n_urns)]
        reds = []
        for n in sizes:
            red = rng.randint(1, n - 1)
            while any(red * s == r * n for r, s in zip(reds, sizes)):
                red = rng.randint(1, n - 1)
            reds.append(red)
        weights = [rng.randint(1, 4) for _ in range(self.n_urns)]
        total = sum(weights)
        self.priors = [Fraction(w, total) for w in weights]
        self.sizes = sizes
        self.reds = reds
        urn = rng.choices(list(range(self.n_urns)), weights=weights)[0]
        self.draws = ["red" if rng.randint(1, sizes[urn]) <= reds[urn] else "blue" for _ in range(self.n_draws)]
        self.posteriors = []
        belief = list(self.priors)
        for colour in self.draws:
            likes = [Fraction(r, n) if colour == "red" else Fraction(n - r, n) for r, n in zip(reds, sizes)]
            joint = [b * p for b, p in zip(belief, likes)]
            norm = sum(joint)
            belief = [j / norm for j in joint]
            self.posteriors.append(belief[0])
        self.index = 0
        self.attempts = 0
        self.done = False
        urns = "; ".join(
            f"urn {NAMES[i]}: {reds[i]} red and {sizes[i] - reds[i]} blue, picked with probability "
            f"{self.priors[i].numerator}/{self.priors[i].denominator}"
            for i in range(self.n_urns)
        )
        obs = (
            f"{urns}. One urn was picked; balls are drawn from it with replacement. After each draw, give "
            f"P(urn A | all draws so far) as \\boxed{{p}} (a fraction or a decimal within 0.001).\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        seen = ", ".join(self.draws[: self.index + 1])
        return f"Draw {self.index + 1}/{self.n_draws} is {self.draws[self.index]} (draws so far: {seen})."

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value < 0 or value > 1:
            obs = f"Reply with a probability between 0 and 1 as \\boxed{{p}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a probability in \\boxed{}", "step": self.index}
        expected = self.posteriors[self.index]
        if abs(value - expected) <= TOLERANCE:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.n_draws
            if self.index == self.n_draws:
                self.done = True
                info = {"success": True, "step": self.index}
                return "Correct. That is the final posterior.", reward, True, False, info
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            shown = f"{expected.numerator}/{expected.denominator}"
            return f"{note}. Out of tries; it was {shown}.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        return (
            "Multiply each urn's current probability by the chance of the observed colour from that urn, then divide "
            "by the sum over all urns; the result becomes the prior for the next draw."
        )

    def reference_action(self):
        if self.done or not self.posteriors:
            return "\\boxed{0}"
        # seven significant digits: well inside the 0.001 tolerance
        return f"\\boxed{{{float(self.posteriors[self.index]):.6e}}}"
