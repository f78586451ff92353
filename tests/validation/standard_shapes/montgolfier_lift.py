# shape: numeric answer with a stated relative tolerance (0.5%), multi-step physics word problem with too-high/too-low feedback.
"""Estimate a hot-air balloon's lift step by step from air densities (ideal-gas approximation)."""

from fractions import Fraction

from spade_domains.math.verify import answers_match, extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "MontgolfierLift",
    "domain": "math",
    "description": (
        "A Montgolfier-style balloon of given volume is filled with heated air. Using air density = 353 / T "
        "(kg per cubic metre, T in kelvin), give the outside density, the inside density, the gross lift and the "
        "payload left after the envelope's mass, each within 0.5%."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "steps": {"min": 3, "max": 4, "default": 4, "description": "quantities asked (the payload is the 4th)"},
        "volume_high": {"min": 800, "max": 3000, "default": 2200, "description": "largest envelope volume in m^3"},
    },
    "grounding": (
        "The Montgolfier brothers' hot-air balloons (1783): heating the air inside the envelope lowers its density, "
        "and the lift is the volume times the density difference between the outside and inside air."
    ),
    "tags": ["physics", "density", "tolerance", "multi-step"],
}

ATTEMPTS = 3
REL_TOL = 0.005


class MontgolfierLift:
    def __init__(self, steps=4, volume_high=2200):
        self.steps = steps
        self.volume_high = volume_high
        self.volume = 0
        self.t_out = 0
        self.t_in = 0
        self.envelope = 0
        self.answers = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        self.volume = 50 * rng.randint(12, self.volume_high // 50)
        self.t_out = rng.randint(-5, 30)
        self.t_in = rng.randint(70, 120)
        rho_out = Fraction(353) / (self.t_out + 273)
        rho_in = Fraction(353) / (self.t_in + 273)
        lift = self.volume * (rho_out - rho_in)
        self.envelope = max(10, int(lift * Fraction(rng.randint(30, 60), 100)))
        self.answers = [rho_out, rho_in, lift, lift - self.envelope][: self.steps]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"A balloon envelope holds {self.volume} m^3. Outside air is at {self.t_out} C; the air inside is heated "
            f"to {self.t_in} C. Take air density = 353 / T kg/m^3 with T = Celsius + 273, and treat lift in kg "
            f"(ignore g). The envelope and basket weigh {self.envelope} kg. Answer each question as a number in "
            f"\\boxed{{}}; answers within 0.5% of the exact value count as correct. {ATTEMPTS} tries per question."
            f"\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        texts = [
            "What is the density of the outside air, in kg/m^3?",
            "What is the density of the heated air inside, in kg/m^3?",
            "What is the gross lift (the mass of outside air displaced minus the mass of the heated air), in kg?",
            "What payload in kg can the balloon carry after lifting the envelope and basket?",
        ]
        return f"Question {self.index + 1}/{self.steps}: {texts[self.index]}"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number in \\boxed{{}} (a decimal or a fraction).\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.answers[self.index]
        if answers_match(given, f"{float(expected):.12g}", rel_tol=REL_TOL):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.steps
            if self.index == self.steps:
                self.done = True
                return "Correct. The balloon's budget is complete.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        plans = [
            "Convert the outside temperature to kelvin before dividing 353 by it.",
            "Same formula with the inside temperature; hotter air is less dense.",
            "Lift = volume x (outside density - inside density); keep unrounded densities.",
            "Subtract the envelope and basket mass from the gross lift.",
        ]
        return plans[min(self.index, len(plans) - 1)]

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1}"
        return f"\\boxed{{{float(self.answers[self.index]):.6g}}}"
