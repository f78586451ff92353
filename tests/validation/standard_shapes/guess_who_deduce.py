# shape: imperfect-information deduction (Guess Who): ask feature values (budget knob), one accusation. The board ...
"""Guess Who style deduction: three feature questions, then name the hidden suspect."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "GuessWhoDeduce",
    "domain": "games",
    "description": (
        "A Guess Who style deduction game. A table lists up to 24 suspects and five features (coat, hat, hair, glasses, "
        "bag). One suspect is hidden. Reply 'ask FEATURE' (e.g. 'ask coat') to learn the hidden suspect's value "
        "for that feature; at most the number of questions shown (three by default), and asking a feature twice is refused. Reply "
        "'accuse NAME' to name the suspect: only one accusation is allowed, so a wrong one ends the game "
        "(the suspect is then revealed). A question about an unknown feature or an unlisted name is refused "
        "and costs nothing but the turn. Reward 1 for naming the hidden suspect, else 0."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "players": 1,
    "difficulty": {
        "questions": {"min": 2, "max": 3, "default": 3,
                      "description": "feature questions allowed per game (the board is built so they suffice)"},
    },
    "grounding": "Guess Who? (Theo and Ora Coster, 1979): yes/no questions about features narrow a face grid.",
    "tags": ["deduction", "hidden-information", "single-player", "question-asking"],
}

FEATURES = {
    "coat": ["red", "blue", "green", "grey"],
    "hat": ["cap", "beret", "none"],
    "hair": ["black", "brown", "blond"],
    "glasses": ["yes", "no"],
    "bag": ["yes", "no"],
}
ORDER = ["coat", "hat", "hair", "glasses", "bag"]
NAMES = ["Alma", "Bruno", "Carla", "Dmitri", "Edith", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Kemal", "Lena",
         "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wyatt", "Xenia",
         "Yusuf", "Zora", "Anton", "Bella", "Cyrus", "Dora"]
COUNT = 24
ACCUSATIONS = 1


def candidates(table, answers):
    return [n for n in table if all(table[n][f] == v for f, v in answers.items())]


def best_question(table, answers, asked):
    """The unasked feature leaving the fewest suspects on average (ties in feature order)."""
    pool = candidates(table, answers)
    best, pick = None, None
    for f in ORDER:
        if f in asked:
            continue
        groups = {}
        for n in pool:
            groups[table[n][f]] = groups.get(table[n][f], 0) + 1
        score = sum(g * g for g in groups.values())
        if best is None or score < best:
            best, pick = score, f
    return pick


class GuessWhoDeduce:
    def __init__(self, questions=3):
        self.budget = questions
        self.table = {}
        self.secret = ""
        self.answers = {}
        self.wrong = []
        self.order = list(ORDER)
        self.done = False

    def reset(self, rng, options):
        self.answers = {}
        self.wrong = []
        self.done = False
        self.order = rng.sample(ORDER, len(ORDER))
        paths = self.grow(rng, [{}], [])
        rng.shuffle(paths)
        names = rng.sample(NAMES, min(COUNT, len(paths)))
        self.table = {}
        shared = {}  # suspects in the same first branch share their other features (family resemblance)
        for i in range(len(names)):
            row = dict(paths[i])
            root = tuple(sorted((f, row[f]) for f in row if len(FEATURES[f]) >= 3))[:1]
            for f in ORDER:
                if f not in row:
                    if (root, f) not in shared:
                        shared[(root, f)] = rng.choice(FEATURES[f])
                    row[f] = shared[(root, f)]
            self.table[names[i]] = row
        self.secret = rng.choice(names)
        return self.observation("A suspect has been hidden."), {"success": False}

    def grow(self, rng, partial, used):
        """Rows fixed on `depth` features; the feature fixed at each level depends on the branch."""
        if len(used) >= self.budget:
            return partial
        out = []
        for row in partial:
            f = rng.choice([g for g in ORDER if g not in row and len(FEATURES[g]) >= (3 if not row else 2)])
            out.extend(self.grow(rng, [dict(row, **{f: v}) for v in FEATURES[f]], used + [f]))
        return out

    def isolates(self, pool, asked, left):
        if len(pool) <= 1:
            return True
        if left == 0:
            return False
        return any(self.splits(pool, asked, left, f) for f in self.order if f not in asked)

    def splits(self, pool, asked, left, f):
        groups = {}
        for n in pool:
            groups.setdefault(self.table[n][f], []).append(n)
        return all(self.isolates(g, asked + [f], left - 1) for g in groups.values())

    def render(self):
        lines = ["name    | " + " | ".join(ORDER)]
        for n in sorted(self.table):
            lines.append(f"{n:<7} | " + " | ".join(self.table[n][f] for f in ORDER))
        return "\n".join(lines)

    def observation(self, note):
        known = ", ".join(f"{f} = {v}" for f, v in self.answers.items()) or "nothing yet"
        wrong = ", ".join(self.wrong) or "none"
        return (f"{note}\nSuspects:\n{self.render()}\nKnown about the hidden suspect: {known}. Wrongly accused: "
                f"{wrong}.\nQuestions left: {self.budget - len(self.answers)}; accusations left: "
                f"{ACCUSATIONS - len(self.wrong)}. Reply 'ask FEATURE' or 'accuse NAME'.")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        tokens = move_tokens(action, 60)
        if len(tokens) == 2 and tokens[0] == "ask" and tokens[1] in FEATURES:
            f = tokens[1]
            if f in self.answers:
                return self.observation(f"You already know the {f}: {self.answers[f]}."), 0.0, False, False, \
                    {"success": False, "action_is_valid": False}
            if len(self.answers) >= self.budget:
                return self.observation("No questions are left; accuse someone."), 0.0, False, False, \
                    {"success": False, "action_is_valid": False}
            self.answers[f] = self.table[self.secret][f]
            return self.observation(f"The hidden suspect's {f}: {self.answers[f]}."), 0.0, False, False, \
                {"success": False, "action_is_valid": True}
        if len(tokens) == 2 and tokens[0] in ("accuse", "guess"):
            name = tokens[1].capitalize()
            if name not in self.table:
                return self.observation(f"{safe_echo(tokens[1])} is not on the table."), 0.0, False, False, \
                    {"success": False, "action_is_valid": False}
            if name == self.secret:
                self.done = True
                return f"Yes: the hidden suspect is {name}. Solved!", 1.0, True, False, \
                    {"success": True, "action_is_valid": True}
            if name not in self.wrong:
                self.wrong.append(name)
            if len(self.wrong) >= ACCUSATIONS:
                self.done = True
                return f"Not {name}. No accusations are left; the hidden suspect was {self.secret}.", 0.0, True, \
                    False, {"success": False, "action_is_valid": True}
            return self.observation(f"Not {name}."), 0.0, False, False, {"success": False, "action_is_valid": True}
        return self.observation(f"Could not read {safe_echo(action)!r}."), 0.0, False, False, \
            {"success": False, "action_is_valid": False,
             "format_error": "expected 'ask FEATURE' (coat, hat, hair, glasses, bag) or 'accuse NAME'"}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        pool = [n for n in candidates(self.table, self.answers) if n not in self.wrong]
        left = self.budget - len(self.answers)
        return (f"{len(pool)} suspects still fit everything you know, and you have {left} question(s) left. Before "
                f"each question, count how the remaining suspects split over each unasked feature's values: the "
                f"feature whose largest group is smallest (most even split) narrows the field fastest. Accuse "
                f"only when one suspect is left.")

    def reference_action(self):
        if self.done:
            return "ask coat"
        pool = [n for n in candidates(self.table, self.answers) if n not in self.wrong]
        if len(pool) == 1 or len(self.answers) >= self.budget:
            return f"accuse {pool[0]}" if pool else "ask coat"
        asked = list(self.answers)
        left = self.budget - len(asked)
        for f in self.order:
            if f not in asked and self.splits(pool, asked, left, f):
                return f"ask {f}"
        return f"ask {best_question(self.table, self.answers, asked)}"
