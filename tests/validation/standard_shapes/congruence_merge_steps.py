# shape: modular arithmetic, CRT merged one congruence per step with residue feedback on wrong answers.
"""Chinese remainder theorem one merge at a time: the smallest positive solution after each added congruence."""

from math import gcd

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "CongruenceMergeSteps",
    "domain": "math",
    "description": (
        "A Sunzi-style counting puzzle gives remainders of an unknown count for several pairwise coprime divisors. "
        "Merge the congruences one at a time: after each added condition, give the smallest positive number that "
        "satisfies all conditions so far. A wrong number is told which conditions it breaks. Three tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "congruences": {"min": 3, "max": 5, "default": 3, "description": "conditions to merge (steps = this - 1)"},
        "max_modulus": {"min": 9, "max": 23, "default": 13, "description": "largest divisor that can be drawn"},
    },
    "grounding": (
        "The Chinese remainder theorem (Sunzi Suanjing, 'things whose number is unknown'): for pairwise coprime "
        "moduli, x = a1 (mod m1) and x = a2 (mod m2) merge into one residue modulo m1*m2, found by stepping through "
        "a1, a1 + m1, a1 + 2*m1, ... or with the modular inverse of m1 modulo m2."
    ),
    "tags": ["math", "number-theory", "modular-arithmetic", "crt", "multi-step"],
}

ATTEMPTS = 3
MODULI = [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23]
THINGS = ["eggs in a basket", "soldiers on parade", "coins in a chest", "pages in a ledger", "beads on a string"]


class CongruenceMergeSteps:
    def __init__(self, congruences=3, max_modulus=13):
        self.k = congruences
        self.max_modulus = max_modulus
        self.mods = []
        self.rems = []
        self.answers = []
        self.thing = ""
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        pool = [m for m in MODULI if m <= self.max_modulus]
        while True:
            mods = []
            for m in rng.sample(pool, len(pool)):
                if all(gcd(m, x) == 1 for x in mods):
                    mods.append(m)
                if len(mods) == self.k:
                    break
            if len(mods) == self.k:
                break
        self.mods = mods
        while True:
            self.rems = [rng.randint(1, m - 1) for m in mods]
            self.answers = []
            x = self.rems[0]
            step = mods[0]
            for j in range(1, self.k):
                while x % mods[j] != self.rems[j]:
                    x = x + step
                step = step * mods[j]
                self.answers.append(x)
            shown = set(self.rems) | set(mods)
            if len(set(self.answers)) == len(self.answers) and not shown & set(self.answers):
                break
        self.thing = rng.choice(THINGS)
        self.index = 0
        self.attempts = 0
        self.done = False
        return self._question(), {"step": 0, "steps": len(self.answers)}

    def _conditions(self, upto):
        return "; ".join(f"counted in {m}s, {r} are left over" for m, r in zip(self.mods[:upto], self.rems[:upto]))

    def _question(self):
        upto = self.index + 2
        return (
            f"A number of {self.thing} is unknown. Conditions so far: {self._conditions(upto)}.\n"
            f"Step {self.index + 1}/{len(self.answers)}: what is the smallest positive number satisfying these "
            f"{upto} conditions? Reply as \\boxed{{n}}."
        )

    def step(self, action):
        if self.done:
            return "The puzzle is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action) if isinstance(action, str) else None
        value = to_number(given.replace(" ", "")) if given is not None else None
        if value is None or value.denominator != 1 or value <= 0 or value > 10 ** 12:
            error = "expected a positive whole number such as \\boxed{23}"
            return f"Format error: {error}.\n{self._question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        v = value.numerator
        expected = self.answers[self.index]
        upto = self.index + 2
        if v == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.answers)
            if self.index == len(self.answers):
                self.done = True
                return "Correct. Every condition is merged.", reward, True, False, {"success": True,
                                                                                   "step": self.index}
            return f"Correct.\n{self._question()}", reward, False, False, {"success": False, "step": self.index}
        broken = [f"counted in {m}s it leaves {v % m}, not {r}"
                  for m, r in zip(self.mods[:upto], self.rems[:upto]) if v % m != r]
        if broken:
            note = f"{safe_echo(given)} fails: " + "; ".join(broken)
        else:
            note = f"{safe_echo(given)} satisfies every condition but is not the smallest positive one"
        self.attempts = self.attempts + 1
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False,
                                                                                  "step": self.index}
        left = ATTEMPTS - self.attempts
        return f"{note}. {left} tries left.\n{self._question()}", 0.0, False, False, {"success": False,
                                                                                     "step": self.index}

    def privileged_hint(self):
        if self.done:
            return "The puzzle is finished."
        if self.index == 0:
            return (
                "Start from the first condition's leftover and keep adding the first divisor until the second "
                "condition also holds; the result repeats every product of the two divisors."
            )
        return (
            "Reuse the previous answer: the numbers satisfying all earlier conditions are that answer plus multiples "
            "of the product of the earlier divisors; step through them until the new condition holds."
        )

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return "\\boxed{" + str(self.answers[self.index]) + "}"
