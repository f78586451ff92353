# shape: any-valid-output: the function may return ANY arrangement that satisfies the constraints (checked by a
# property checker in each test), or None exactly when no arrangement exists.
"""Rearrange a string so equal letters sit at least `gap` apart (any valid answer), or report impossibility."""

from collections import Counter

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "LetterSpacingAnyValid",
    "domain": "code",
    "description": (
        "Implement spread(s, gap): return any rearrangement of s in which two equal letters are never closer "
        "than gap positions, or None when no such rearrangement exists. Tests check properties (same letters, "
        "spacing respected) rather than one fixed output, and demand None exactly on the impossible inputs."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "length": {"min": 6, "max": 40, "default": 16, "description": "longest hidden test string"},
        "hidden_tests": {"min": 6, "max": 20, "default": 10, "description": "hidden property tests"},
    },
    "grounding": (
        "Seating deputies of the same faction apart on the benches of the Assembly: no two members of one faction "
        "may sit within a given number of seats of each other."
    ),
    "tags": ["code", "any-valid-output", "greedy", "heap", "multi-turn"],
}

ALPHABET = "abcdefgh"


def feasible(s, gap):
    if not s:
        return True
    counts = Counter(s)
    top = max(counts.values())
    tied = sum(1 for v in counts.values() if v == top)
    return (top - 1) * gap + tied <= len(s)


def property_test(s, gap):
    """An assert that spread(s, gap) returns a valid arrangement (the instance is feasible)."""
    call = f"spread({s!r}, {gap})"
    check = (
        f"(lambda r: isinstance(r, str) and sorted(r) == sorted({s!r}) and all(r[i] != r[j] for i in range(len(r)) "
        f"for j in range(i + 1, min(len(r), i + {gap}))))({call})"
    )
    return f"assert {check}, 'got ' + repr({call})"


class LetterSpacingAnyValid:
    def __init__(self, length=16, hidden_tests=10):
        self.length = length
        self.hidden_tests = hidden_tests
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _add(self, s, gap):
        if feasible(s, gap):
            self.tests.append(property_test(s, gap))
            self.labels.append(f"spread({s!r}, {gap}) -> a valid arrangement")
        else:
            self.tests.append(equality_test(f"spread({s!r}, {gap})", None))
            self.labels.append(f"spread({s!r}, {gap}) == None (impossible)")

    def _draw(self, rng, want_feasible):
        for _ in range(200):
            n = rng.randint(4, self.length)
            k = rng.randint(2, 5)
            letters = ALPHABET[:k]
            heavy = rng.choice(letters)
            s = [heavy if rng.random() < 0.35 else rng.choice(letters) for _ in range(n)]
            rng.shuffle(s)
            s = "".join(s)
            gap = rng.randint(2, 4)
            if feasible(s, gap) == want_feasible:
                return s, gap
        return "abcabc", 3

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        shown = [self._draw(rng, True), self._draw(rng, False)]
        for s, gap in shown:
            self._add(s, gap)
            self.visible.append(self.tests[-1])
        self._add("", rng.randint(2, 4))
        self._add(rng.choice(ALPHABET) * rng.randint(2, 3), 1)
        # the tight boundary: exactly feasible, and one letter too many
        k = rng.randint(2, 4)
        m = rng.randint(2, 4)
        base = "".join(ALPHABET[:k]) * m
        self._add("".join(sorted(base)), k)
        self._add("".join(sorted(base + ALPHABET[0])), k)
        for i in range(self.hidden_tests):
            s, gap = self._draw(rng, i % 3 != 2)
            self._add(s, gap)
        return self._task(), {"tests": len(self.tests)}

    def _task(self):
        shown = "\n".join("  " + self.labels[self.tests.index(t)] for t in self.visible[:2])
        return (
            "Write a Python function spread(s, gap) and reply with it in a ```python block.\n"
            "s is a string of lowercase letters and gap >= 1 an int. Return any string that uses exactly the letters "
            "of s (same counts) in which every two equal letters at positions i < j satisfy j - i >= gap. If no such "
            "string exists, return None. spread('', gap) is ''. Any valid arrangement is accepted; the tests check "
            "the properties, and check that None is returned exactly when no arrangement exists.\n"
            "Examples:\n" + shown + "\n"
            f"Hidden tests check other strings and gaps. You have {ENV_SPEC['max_turns']} tries."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "spread" not in defined_names(code):
            error = "your code does not define spread() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Tries left: {left}.\n\n{self._task()}"
            return obs, 0.0, False, left <= 0, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        text = describe_results(result, self.visible, self.labels)
        if result["error"] is None:
            for i, item in enumerate(result["results"]):
                if not item["ok"] and self.tests[i] not in self.visible:
                    self.visible.append(self.tests[i])
                    text = text + f"\nNewly revealed failing test: {self.labels[i]}\n  error: {(item['error'] or '')[:300]}"
                    break
        return text + f"\nTries left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        return (
            "Fill positions left to right; at each position choose, among the letters not used in the previous "
            "gap-1 positions, one with the most copies left (a heap with a cooldown queue works). If none is "
            "available the input is impossible. Feasibility has a closed form too: with top = the largest count "
            "and t = how many letters have it, it is possible iff (top - 1) * gap + t <= len(s)."
        )

    def reference_action(self):
        code = (
            "from collections import Counter\n\n"
            "def spread(s, gap):\n"
            "    counts = Counter(s)\n"
            "    out = []\n"
            "    for i in range(len(s)):\n"
            "        recent = set(out[max(0, i - gap + 1):])\n"
            "        options = [(-counts[c], c) for c in counts if counts[c] > 0 and c not in recent]\n"
            "        if not options:\n"
            "            return None\n"
            "        c = min(options)[1]\n"
            "        out.append(c)\n"
            "        counts[c] -= 1\n"
            "    return ''.join(out)\n"
        )
        return "```python\n" + code + "```"
