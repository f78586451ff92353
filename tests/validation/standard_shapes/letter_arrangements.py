# shape: combinatorics with exact integers (multiset permutations, vowel block, consonant ends, fixed first ...
"""Count distinct arrangements of a word with repeated letters under constraints: exact integers, one per step."""

from collections import Counter
from math import factorial

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "LetterArrangementCounts",
    "domain": "math",
    "description": (
        "For a word with repeated letters, count distinct arrangements of all its letters step by step: with no "
        "constraint, with all vowels kept together, with a consonant at both ends, and (optionally) with the word's "
        "first letter kept at the front. Exact integers; two tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "max_length": {"min": 6, "max": 11, "default": 8, "description": "longest word that can be drawn"},
        "steps": {"min": 3, "max": 4, "default": 3, "description": "counting questions asked"},
    },
    "grounding": (
        "Permutations of a multiset: n! divided by the factorial of each letter's multiplicity (the MISSISSIPPI "
        "problem), gluing letters that must stay together into one block, and fixing end positions by summing over "
        "the choices for the ends."
    ),
    "tags": ["math", "combinatorics", "counting", "permutations", "multi-step"],
}

ATTEMPTS = 2
VOWELS = "AEIOU"
WORDS = [
    "BANANA", "LETTER", "COFFEE", "PEPPER", "TATTOO", "ASSESS", "BALLOON", "SUCCESS", "ADDRESS", "CALCULUS",
    "PARALLEL", "COMMITTEE", "MISSPELLED", "STATISTICS", "BOOKKEEPER", "MISSISSIPPI", "ASSASSIN", "REFERRED",
]


def multiset_perms(counter):
    out = factorial(sum(counter.values()))
    for k in counter.values():
        out = out // factorial(k)
    return out


def counts_for(word):
    letters = Counter(word)
    vowels = Counter({ch: k for ch, k in letters.items() if ch in VOWELS})
    cons = Counter({ch: k for ch, k in letters.items() if ch not in VOWELS})
    total = multiset_perms(letters)
    block = multiset_perms(cons + Counter({"#": 1})) * multiset_perms(vowels)
    ends = 0
    for x in cons:
        for y in cons:
            rest = Counter(letters)
            rest[x] = rest[x] - 1
            if rest[y] <= 0:
                continue
            rest[y] = rest[y] - 1
            ends = ends + multiset_perms(+rest)
    first = word[0]
    rest = Counter(letters)
    rest[first] = rest[first] - 1
    front = multiset_perms(+rest)
    return total, block, ends, front


class LetterArrangementCounts:
    def __init__(self, max_length=8, steps=3):
        self.max_length = max_length
        self.n_steps = steps
        self.word = ""
        self.steps = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        pool = [w for w in WORDS if len(w) <= self.max_length]
        self.word = rng.choice(pool)
        total, block, ends, front = counts_for(self.word)
        w = self.word
        self.steps = [
            (f"How many distinct arrangements of all the letters of {w} are there?", total,
             "Divide n! by the factorial of each letter's multiplicity, since swapping equal letters changes nothing."),
            (f"In how many of them do all the vowels (A, E, I, O, U) of {w} stand together in one block?", block,
             "Glue the vowels into one block: arrange the consonants plus the block as a multiset, then multiply by "
             "the distinct orders of the vowels inside the block."),
            (f"In how many arrangements of {w} are the first AND the last letters both consonants?", ends,
             "Sum over every ordered choice of end consonants (the same letter twice only if it occurs twice), "
             "counting multiset arrangements of the remaining letters in the middle."),
            (f"In how many arrangements of {w} is the first letter the letter {w[0]}?", front,
             "Fix one copy of that letter at the front and count multiset arrangements of the rest."),
        ][: self.n_steps]
        self.index = 0
        self.attempts = 0
        self.done = False
        return self._question(), {"word": w, "steps": len(self.steps)}

    def _question(self):
        return (
            f"Counting arrangements of the word {self.word} (all {len(self.word)} letters used; arrangements that "
            f"read the same count once; Y is not a vowel).\nStep {self.index + 1}/{len(self.steps)}: "
            f"{self.steps[self.index][0]} Reply with the exact integer as \\boxed{{n}}."
        )

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action) if isinstance(action, str) else None
        value = to_number(given.replace(",", "").replace(" ", "")) if given is not None else None
        if value is None or value.denominator != 1 or value <= 0:
            error = "expected a positive whole number such as \\boxed{120}"
            return f"Format error: {error}.\n{self._question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        expected = self.steps[self.index][1]
        if value == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. All counts found.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self._question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if expected != 0 and value % expected == 0:
            note = note + " (by a whole factor: check for repeated letters counted as distinct)"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}. 1 try left.\n{self._question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done:
            return "The problem is finished."
        return self.steps[self.index][2]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return "\\boxed{" + str(self.steps[self.index][1]) + "}"
