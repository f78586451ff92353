# shape: MATH-style pigeonhole questions with small whole-number answers, two tries each
"""MATH-style pigeonhole questions with a small integer answer space: worst-case draws from a dark sock drawer."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "SockDrawerGuarantee",
    "domain": "math",
    "description": (
        "A drawer holds socks of three to five colours in known numbers and the room is dark. The agent answers a "
        "series of 'fewest socks you must take out to be certain of ...' questions (some colour m times, a given "
        "colour m times, every colour, two colours, p matching pairs). Answers are small whole numbers; each "
        "question allows two tries with too high / too low feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "colours": {"min": 3, "max": 5, "default": 4, "description": "sock colours in the drawer"},
        "questions": {"min": 2, "max": 4, "default": 3, "description": "questions to answer in a row"},
    },
    "grounding": (
        "The pigeonhole principle as used in competition combinatorics (AMC, MATHCOUNTS): the answer to 'how many "
        "must be drawn to guarantee ...' is one more than the largest draw that can still avoid the event, found "
        "by constructing the worst case."
    ),
    "tags": ["math", "combinatorics", "pigeonhole", "worst-case"],
}

COLOURS = ["black", "white", "grey", "navy", "red", "green"]
TRIES = 2


def most_without_pairs(counts, p):
    """Largest draw holding fewer than p pairs: a knapsack over colours on the number of pairs used."""
    best = {0: 0}
    for c in counts:
        nxt = {}
        for used, socks in best.items():
            for a in range(c // 2 + 1):
                if used + a > p - 1:
                    break
                take = 2 * a + (1 if 2 * a + 1 <= c else 0)
                if nxt.get(used + a, -1) < socks + take:
                    nxt[used + a] = socks + take
        best = nxt
    return max(best.values())


class SockDrawerGuarantee:
    def __init__(self, colours=4, questions=3):
        self.n_colours = colours
        self.n_questions = questions
        self.names = []
        self.counts = []
        self.texts = []
        self.answers = []
        self.kinds = []
        self.index = 0
        self.tries = 0
        self.done = False

    def _questions(self, rng):
        counts = self.counts
        k = len(counts)
        pool = []
        m = rng.randint(2, min(4, max(counts)))
        pool.append((f"at least {m} socks of the same colour (any colour)",
                     sum(min(v, m - 1) for v in counts) + 1, "same"))
        options = [i for i in range(k) if counts[i] >= 2]
        c = rng.choice(options)
        m2 = rng.randint(2, min(4, counts[c]))
        pool.append((f"at least {m2} {self.names[c]} socks",
                     sum(counts) - counts[c] + m2, "given"))
        pool.append(("at least one sock of every colour",
                     sum(counts) - min(counts) + 1, "every"))
        pairs_possible = sum(v // 2 for v in counts)
        p = rng.randint(2, min(4, pairs_possible))
        pool.append((f"{p} matching pairs (two socks of one colour make a pair; a pair uses two socks, so four "
                     f"socks of one colour are two pairs)",
                     most_without_pairs(counts, p) + 1, "pairs"))
        two = rng.sample(range(k), 2)
        a, b = two[0], two[1]
        pool.append((f"at least one {self.names[a]} sock or at least one {self.names[b]} sock",
                     sum(counts) - counts[a] - counts[b] + 1, "either"))
        pool.append(("socks of at least two different colours",
                     max(counts) + 1, "two"))
        rng.shuffle(pool)
        return pool[: self.n_questions]

    def reset(self, rng, options):
        self.names = rng.sample(COLOURS, self.n_colours)
        self.counts = [rng.randint(2, 8) for _ in range(self.n_colours)]
        while len(set(self.counts)) < 2:
            self.counts = [rng.randint(2, 8) for _ in range(self.n_colours)]
        chosen = self._questions(rng)
        self.texts = [t for t, _, _ in chosen]
        self.answers = [a for _, a, _ in chosen]
        self.kinds = [k for _, _, k in chosen]
        self.index = 0
        self.tries = 0
        self.done = False
        stock = ", ".join(f"{n} {c}" for c, n in zip(self.names, self.counts))
        obs = (
            f"A drawer holds {stock} socks ({sum(self.counts)} in all). The room is dark, so socks come out in an "
            "unknown order and you cannot see colours until you are done. For each question give the fewest socks "
            "you must take out to be CERTAIN, whatever comes out, as \\boxed{n}. Each question allows "
            f"{TRIES} tries.\n" + self.question()
        )
        return obs, {"question": 0, "questions": len(self.answers)}

    def question(self):
        return f"Question {self.index + 1}/{len(self.answers)}: to be certain of {self.texts[self.index]}?"

    def step(self, action):
        if self.done:
            return "The problem set is finished.", 0.0, True, False, {"success": False, "question": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1 or value < 1:
            error = "expected a positive whole number of socks as \\boxed{n}"
            return f"Format error: {error}.\n{self.question()}", 0.0, False, False, {
                "success": False, "format_error": error, "question": self.index}
        expected = self.answers[self.index]
        if value == expected:
            self.index = self.index + 1
            self.tries = 0
            reward = 1.0 / len(self.answers)
            if self.index == len(self.answers):
                self.done = True
                return "Correct. All questions answered.", reward, True, False, {"success": True,
                                                                                 "question": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "question": self.index}
        self.tries = self.tries + 1
        if value > sum(self.counts):
            note = f"{safe_echo(given)} is more socks than the drawer holds"
        elif value > expected:
            note = f"{safe_echo(given)} is more than you need: a smaller draw already forces it"
        else:
            note = f"{safe_echo(given)} is too few: some order of {int(value)} socks still avoids it"
        if self.tries >= TRIES:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "question": self.index}
        return f"{note}. {TRIES - self.tries} try left.\n{self.question()}", 0.0, False, False, {
            "success": False, "question": self.index}

    def privileged_hint(self):
        kind = self.kinds[min(self.index, len(self.kinds) - 1)] if self.kinds else "same"
        return {
            "same": "Worst case: take as many of each colour as possible while staying below the target in every "
                    "colour (a colour with fewer socks than that contributes all of them); one more sock forces it.",
            "given": "Worst case: every sock of every other colour comes out first.",
            "every": "Worst case: everything except the scarcest colour comes out first.",
            "pairs": "Worst case: each colour sits at an odd count (one unpaired sock each) while the pairs stay "
                     "one short; check whether a colour runs out before it can hold its odd sock.",
            "either": "Worst case: all socks of the other colours come out first.",
            "two": "Worst case: the most plentiful colour comes out entirely first.",
        }[kind]

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1}"
        return f"\\boxed{{{self.answers[self.index]}}}"
