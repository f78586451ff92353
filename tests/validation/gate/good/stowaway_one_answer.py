# expect: accepted
"""Find the stowaway: which cabin (A to H) and which deck (upper or lower), with at most four yes/no questions."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "StowawaySearch",
    "domain": "games",
    "description": (
        "A stowaway hides in one of the cabins A to H on the upper or the lower deck. Ask up to four yes/no questions "
        "('ask cabin in A B C' or 'ask deck upper'), then name the hiding place once, as 'answer C lower'. One "
        "answer only: a wrong answer ends the search."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {"questions": {"min": 4, "max": 6, "default": 4,
                                 "description": "yes/no questions allowed (4 is exactly enough for 16 places)"}},
    "grounding": "Sixteen equally likely hiding places need log2(16) = 4 yes/no answers: each question halves them.",
    "tags": ["deduction", "bisection", "single-player"],
}

CABINS = "ABCDEFGH"
DECKS = ("upper", "lower")


class StowawaySearch:
    def __init__(self, questions=4):
        self.questions = questions
        self.cabin, self.deck = "A", "upper"
        self.cabins, self.decks = list(CABINS), list(DECKS)
        self.asked = 0
        self.done = False
        self.log = []

    def reset(self, rng, options):
        self.cabin, self.deck = rng.choice(CABINS), rng.choice(DECKS)
        self.cabins, self.decks = list(CABINS), list(DECKS)
        self.asked = 0
        self.done = False
        self.log = []
        return self.render("A stowaway is aboard."), {"questions_left": self.questions}

    def render(self, note):
        answers = "; ".join(self.log) or "none yet"
        return (f"{note}\nCabins A to H, decks upper and lower. Answers so far: {answers}. Questions left: "
                f"{self.questions - self.asked}.\nReply 'ask cabin in <letters>', 'ask deck upper|lower' or your "
                f"one final 'answer <cabin> <deck>'.")

    def step(self, action):
        if self.done:
            return "The search is over.", 0.0, True, False, {"success": False}
        tokens = move_tokens(action, 40)
        if len(tokens) == 3 and tokens[0] == "answer" and tokens[1].upper() in CABINS and tokens[2] in DECKS:
            self.done = True
            if (tokens[1].upper(), tokens[2]) == (self.cabin, self.deck):
                return f"Found: cabin {self.cabin}, {self.deck} deck.", 1.0, True, False, {"success": True}
            return (f"Wrong: the stowaway was in cabin {self.cabin} on the {self.deck} deck.", 0.0, True, False,
                    {"success": False})
        asking = self.question(tokens)
        if asking is None:
            return (self.render(f"Could not read {safe_echo(action)!r}."), 0.0, False, False,
                    {"format_error": "expected 'ask cabin in A B', 'ask deck upper' or 'answer C lower'"})
        if self.asked >= self.questions:
            return self.render("No questions left: give your answer."), 0.0, False, False, {"questions_left": 0}
        kind, values = asking
        self.asked += 1
        yes = (self.cabin if kind == "cabin" else self.deck) in values
        if kind == "cabin":
            self.cabins = [c for c in self.cabins if (c in values) == yes]
        else:
            self.decks = [d for d in self.decks if (d in values) == yes]
        self.log.append(f"{kind} in {' '.join(values)}: {'yes' if yes else 'no'}")
        return self.render("Noted."), 0.0, False, False, {"questions_left": self.questions - self.asked}

    def question(self, tokens):
        if len(tokens) >= 4 and tokens[:3] == ["ask", "cabin", "in"]:
            letters = [t.upper() for t in tokens[3:]]
            if all(len(t) == 1 and t in CABINS for t in letters):
                return "cabin", sorted(set(letters))
        if len(tokens) == 3 and tokens[:2] == ["ask", "deck"] and tokens[2] in DECKS:
            return "deck", [tokens[2]]
        return None

    def privileged_hint(self):
        return (f"{len(self.cabins)} cabin(s) and {len(self.decks)} deck(s) remain possible; ask about half of the "
                f"remaining cabins at a time, and settle the deck with one question.")

    def reference_action(self):
        if len(self.decks) > 1:
            return "ask deck upper"
        if len(self.cabins) > 1:
            return "ask cabin in " + " ".join(self.cabins[: len(self.cabins) // 2])
        return f"answer {self.cabins[0]} {self.decks[0]}"
