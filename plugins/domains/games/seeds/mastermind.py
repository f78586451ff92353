"""Mastermind: deduce a hidden code of coloured pegs from exact / colour-only match counts."""

from itertools import product

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "Mastermind",
    "domain": "games",
    "description": (
        "Break a hidden code of 4 pegs, each one of N colours (digits 1..N, repeats allowed). Each guess is "
        "answered with how many pegs are right in colour and place, and how many more are right in colour only."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "colours": {"min": 4, "max": 8, "default": 6, "description": "colours per peg (the code space is N^4)"},
    },
    "grounding": (
        "Mastermind (M. Meirowitz, 1970): Knuth (1977) showed every 4-peg, 6-colour code can be found in five "
        "guesses; a guess consistent with all feedback so far always shrinks the candidate set."
    ),
    "tags": ["deduction", "code-breaking", "puzzle", "feedback"],
}

PEGS = 4


def score(guess, code):
    """(exact, colour_only) match counts."""
    exact = sum(1 for g, c in zip(guess, code) if g == c)
    common = 0
    for colour in set(guess):
        common = common + min(guess.count(colour), code.count(colour))
    return exact, common - exact


class Mastermind:
    def __init__(self, colours=6):
        self.colours = colours
        self.max_guesses = 10 if colours <= 6 else 12
        self.code = "1111"
        self.history = []
        self.pool = []
        self.done = False

    def reset(self, rng, options):
        self.code = "".join(str(rng.randint(1, self.colours)) for _ in range(PEGS))
        self.history = []
        self.pool = ["".join(p) for p in product("".join(str(c) for c in range(1, self.colours + 1)), repeat=PEGS)]
        self.done = False
        obs = (
            f"A hidden code has {PEGS} pegs, each a colour 1-{self.colours} (repeats allowed). Reply with a guess "
            f"of {PEGS} digits, e.g. 1 2 3 4 or 1234. After each guess you get: exact = right colour in the right "
            f"place, colour = right colour in the wrong place. You have {self.max_guesses} guesses."
        )
        return obs, {"guesses_left": self.max_guesses}

    def parse(self, action):
        move = clean_move(action, 40)
        if move is None:
            return None
        digits = "".join(ch for ch in move if ch not in " ,-")
        if len(digits) != PEGS or not all(ch.isdigit() and 1 <= int(ch) <= self.colours for ch in digits):
            return None
        return digits

    def board(self):
        return "\n".join(f"{g}  exact {e}, colour {c}" for g, e, c in self.history)

    def step(self, action):
        guess = self.parse(action)
        left = self.max_guesses - len(self.history)
        if guess is None:
            obs = (
                f"{safe_echo(action)!r} is not a code: give {PEGS} digits, each from 1 to {self.colours}."
                + (f"\n{self.board()}" if self.history else "")
            )
            return obs, 0.0, False, False, {"format_error": f"expected {PEGS} digits in 1-{self.colours}",
                                            "guesses_left": left}
        exact, colour = score(guess, self.code)
        self.history.append((guess, exact, colour))
        self.pool = [c for c in self.pool if score(guess, c) == (exact, colour)]
        left = left - 1
        if exact == PEGS:
            self.done = True
            return f"{guess}  exact {PEGS}. Code broken in {len(self.history)} guesses!", 1.0, True, False, {
                "success": True, "guesses_left": left}
        if left <= 0:
            self.done = True
            return f"{self.board()}\nOut of guesses; the code was {self.code}.", 0.0, True, False, {
                "success": False, "guesses_left": 0}
        return f"{self.board()}\n{left} guesses left.", 0.0, False, False, {"success": False, "guesses_left": left}

    def privileged_hint(self):
        distinct = len(set(self.code))
        words = ["zero", "one", "two", "three", "four"]
        repeat = "no colour repeats" if distinct == PEGS else "some colour appears more than once"
        return (
            f"The code uses {words[distinct]} distinct colours ({repeat}). Only guess codes that agree with every "
            f"answer so far."
        )

    def reference_action(self):
        if self.done or not self.pool:
            return self.code
        if not self.history:
            return "1122"
        return self.pool[0]
