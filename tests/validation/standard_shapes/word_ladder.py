# shape: any valid output of minimal length is accepted (a word ladder through an embedded word list)
"""Turn one four-letter word into another by changing one letter at a time, every step a word of the list; any
ladder of the minimal length is accepted, so the verifier checks each rung rather than one expected ladder."""

from collections import deque

ENV_SPEC = {
    "name": "WordLadder",
    "domain": "math",
    "description": "Give a shortest word ladder between two four-letter words (one letter changed per rung, every "
                   "rung in the given word list); any ladder of minimal length is accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"rungs": {"min": 3, "max": 6, "default": 4, "description": "least rungs between the words"}},
    "grounding": "Lewis Carroll's doublets (1877): the words are nodes, one-letter changes are edges, and "
                 "breadth-first search finds the shortest ladders.",
    "tags": ["words", "shortest-path", "graph", "any-valid-output"],
}

WORDS = sorted(set("""
bake bale ball bane bare bear beat bell bill bold bole bone bore cake call came cane cape care case cave cell cold
cone core dale dame dare date deal dear dell dine dole done dose fail fake fall fame fare fate fear feat fell fill
fine fold fore gale game gate gave gear gill gold gone hail hale hall hare hate have heal hear heat hell hill hold
hole hose late line lone lore lose mail make male mall mane mare mate meal meat mill mine mold mole more nail name
near neat nine none nose pail pale pall pane peal pear peat pill pine pole pore pose rail rake rare rate real rear
role rose sail sake sale same sane save seal seat sell sill sold sole sore tail take tale tall tame tear tell till
told tone tore wail wake wall wane ware wave wear well will wine wore
""".split()))
INDEX = set(WORDS)


def one_letter_apart(word):
    out = []
    for i in range(4):
        for letter in "abcdefghijklmnopqrstuvwxyz":
            other = word[:i] + letter + word[i + 1:]
            if other != word and other in INDEX:
                out.append(other)
    return out


NEIGHBOURS = {word: one_letter_apart(word) for word in WORDS}


def distances(start):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        word = queue.popleft()
        for other in NEIGHBOURS[word]:
            if other not in seen:
                seen[other] = seen[word] + 1
                queue.append(other)
    return seen


class WordLadder:
    def __init__(self, rungs=4):
        self.rungs = rungs
        self.start = ""
        self.goal = ""
        self.back = {}
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        while True:
            self.start = rng.choice(WORDS)
            ends = [w for w, d in distances(self.start).items() if d == self.rungs]
            if ends:
                self.goal = rng.choice(sorted(ends))
                break
        self.back = distances(self.goal)
        return (f"Change '{self.start}' into '{self.goal}' one letter at a time; every word on the way must be "
                f"a word of this list: {' '.join(WORDS)}. Use as few steps as possible. Reply with the whole "
                f"ladder from {self.start} to {self.goal}, words separated by commas. Any ladder of the shortest "
                "length is accepted; you have 2 tries."), {}

    def step(self, action):
        self.turn = self.turn + 1
        last = self.turn >= 2
        words = [w.strip().strip(".").lower() for w in action[:400].replace("->", ",").split(",") if w.strip()]
        if len(words) < 2 or any(len(w) != 4 or not w.isalpha() for w in words):
            info = {"success": False, "format_error": "expected four-letter words separated by commas"}
            return "Reply with four-letter words separated by commas.", 0.0, last, False, info
        if words[0] != self.start or words[-1] != self.goal:
            return f"A ladder must start at {self.start} and end at {self.goal}.", 0.0, last, False, \
                {"success": False}
        unknown = [w for w in words if w not in INDEX]
        if unknown:
            return f"'{unknown[0]}' is not in the word list.", 0.0, last, False, {"success": False}
        for a, b in zip(words, words[1:]):
            if sum(x != y for x, y in zip(a, b)) != 1:
                return f"{a} -> {b} does not change exactly one letter.", 0.0, last, False, {"success": False}
        if len(words) - 1 != self.rungs:
            return f"That ladder takes {len(words) - 1} steps; a shorter one exists.", 0.0, last, False, \
                {"success": False}
        return "A shortest ladder.", 1.0, True, False, {"success": True}

    def privileged_hint(self):
        return (f"The shortest ladder takes {self.rungs} steps. Change first the letters that the target word has, "
                "in an order that keeps every rung a common word.")

    def reference_action(self):
        back = self.back
        ladder = [self.start]
        while ladder[-1] != self.goal:
            ladder.append(next(w for w in NEIGHBOURS[ladder[-1]] if back.get(w) == back[ladder[-1]] - 1))
        return ", ".join(ladder)
