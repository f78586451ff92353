# expect: fixed_answer
# twin: remainder_clues
# flaw: the secret is re-drawn inside step every time a clue is requested, so the remainders the agent collects describe different numbers and cannot be combined
"""Multi-turn: recover a secret number by asking for its remainders (Chinese remainder theorem)."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "RemainderCluesSecret",
    "domain": "math",
    "description": (
        "A secret integer lies in [0, M). Each turn either ask 'clue p' for one of the offered moduli p and "
        "learn the secret mod p, or answer \\boxed{n}. Coprime moduli whose product reaches M pin it down."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "players": 1,
    "difficulty": {
        "moduli": {"min": 2, "max": 4, "default": 3, "description": "clues needed: M is the product of this many primes"},
        "guesses": {"min": 1, "max": 3, "default": 2, "description": "final answers allowed"},
    },
    "grounding": (
        "The Chinese remainder theorem: residues modulo pairwise coprime moduli determine an integer modulo "
        "their product; solve by successive substitution or with modular inverses."
    ),
    "tags": ["number-theory", "crt", "multi-turn", "clues"],
}

PRIMES = [3, 5, 7, 11, 13, 17]


class RemainderCluesSecret:
    def __init__(self, moduli=3, guesses=2):
        self.n_moduli = moduli
        self.guesses = guesses
        self.rng = None
        self.primes = []
        self.limit = 1
        self.secret = 0
        self.known = {}
        self.guesses_left = guesses
        self.done = False

    def _draw(self):
        self.primes = sorted(self.rng.sample(PRIMES, self.n_moduli))
        self.limit = 1
        for p in self.primes:
            self.limit = self.limit * p
        self.secret = self.rng.randint(0, self.limit - 1)

    def reset(self, rng, options):
        self.rng = rng
        self._draw()
        self.known = {}
        self.guesses_left = self.guesses
        self.done = False
        return self._text("Find the secret."), {"moduli": list(self.primes)}

    def _text(self, lead):
        have = ", ".join(f"secret mod {p} = {r}" for p, r in sorted(self.known.items())) or "none yet"
        return (
            f"{lead} The secret is an integer in [0, {self.limit}). Offered moduli: "
            f"{', '.join(str(p) for p in self.primes)}. Ask 'clue p' to learn the secret mod p, or answer "
            f"\\boxed{{n}} ({self.guesses_left} answers left). Clues so far: {have}."
        )

    def step(self, action):
        text = action.strip().lower()
        if text.startswith("clue"):
            parts = text.split()
            if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) not in self.primes:
                return self._text("Ask 'clue p' with p one of the offered moduli."), 0.0, False, False, {
                    "format_error": "clue needs an offered modulus", "action_is_valid": False}
            p = int(parts[1])
            # Keep the offered moduli fresh for the next request.
            old_primes = list(self.primes)
            self._draw()
            self.primes = old_primes
            self.limit = 1
            for q in self.primes:
                self.limit = self.limit * q
            self.secret = self.secret % self.limit
            self.known[p] = self.secret % p
            return self._text(f"secret mod {p} = {self.known[p]}."), 0.0, False, False, {"success": False}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            return self._text("Say 'clue p' or answer \\boxed{n}."), 0.0, False, False, {
                "format_error": "expected 'clue p' or \\boxed{n}", "action_is_valid": False}
        self.guesses_left = self.guesses_left - 1
        if value.numerator == self.secret:
            self.done = True
            return "Correct: that is the secret.", 1.0, True, False, {"success": True}
        if self.guesses_left <= 0:
            self.done = True
            return f"{safe_echo(given)} is wrong and no answers are left.", 0.0, True, False, {"success": False}
        return self._text(f"{safe_echo(given)} is not the secret."), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return ("Ask for every offered modulus first; then combine the residues one modulus at a time: find the "
                "number in range that satisfies the first two, then extend it with the next.")

    def reference_action(self):
        missing = [p for p in self.primes if p not in self.known]
        if missing and not self.done:
            return f"clue {missing[0]}"
        return f"\\boxed{{{self.secret}}}"
