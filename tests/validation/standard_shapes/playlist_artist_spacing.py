# shape: any-valid-output program (same artist at least gap apart; the impossible case signalled as the seed says), checked by the property
"""Any valid output: order a playlist so tracks by the same artist are at least `gap` slots apart, or report none."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "PlaylistArtistSpacing",
    "domain": "code",
    "description": (
        "The agent writes space_playlist(tracks, gap): arrange the given tracks (one letter per artist) so that two "
        "tracks by the same artist are at least gap positions apart. Any valid order is accepted; hidden tests "
        "check the property, and impossible inputs must be reported in the way the seed's specification says "
        "(None, an empty string, or ValueError). Test feedback follows each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "artists": {"min": 2, "max": 6, "default": 4, "description": "most distinct artists in a hidden test"},
        "max_gap": {"min": 2, "max": 4, "default": 3, "description": "largest spacing a hidden test asks for"},
    },
    "grounding": (
        "Radio and streaming 'artist separation' rules (a station will not play the same artist within N songs), "
        "the rearrange-string-k-distance-apart problem and the task-scheduler cooldown bound "
        "(max_count - 1) * gap + ties <= length."
    ),
    "tags": ["code", "any-valid-output", "greedy", "scheduling"],
}

IMPOSSIBLE = {
    "none": ("return None", "None"),
    "empty": ("return the empty string ''", "''"),
    "raise": ("raise ValueError", None),
}
INPUTS = {
    "str": "tracks is a string with one letter per track, e.g. 'aabc' means two tracks by artist a and one each by b and c",
    "dict": "tracks is a dict mapping each artist letter to its number of tracks (counts >= 1), e.g. {'a': 2, 'b': 1}",
}


def feasible(counts, gap):
    n = sum(counts.values())
    top = max(counts.values())
    ties = sum(1 for v in counts.values() if v == top)
    return (top - 1) * gap + ties <= n


def greedy(counts, gap):
    left = dict(counts)
    last = {}
    out = []
    for pos in range(sum(counts.values())):
        ready = [a for a in left if left[a] > 0 and pos - last.get(a, -gap) >= gap]
        if not ready:
            return None
        pick = min(ready, key=lambda a: (-left[a], a))
        out.append(pick)
        left[pick] = left[pick] - 1
        last[pick] = pos
    return "".join(out)


class PlaylistArtistSpacing:
    def __init__(self, artists=4, max_gap=3):
        self.artists = artists
        self.max_gap = max_gap
        self.kind_in = "str"
        self.kind_out = "none"
        self.cases = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def _arg(self, counts):
        if self.kind_in == "dict":
            return repr(dict(sorted(counts.items())))
        return repr("".join(a * counts[a] for a in sorted(counts)))

    def _counts(self, rng, want_feasible):
        for _ in range(200):
            k = rng.randint(2, self.artists)
            letters = rng.sample("abcdefgh", k)
            counts = {a: rng.randint(1, 4) for a in letters}
            gap = rng.randint(2, self.max_gap)
            if rng.random() < 0.4:
                counts[letters[0]] = counts[letters[0]] + rng.randint(1, 3)
            if feasible(counts, gap) == want_feasible and sum(counts.values()) <= 16:
                return counts, gap
        return {"a": 2, "b": 1}, 2

    def reset(self, rng, options):
        self.kind_in = rng.choice(["str", "dict"])
        self.kind_out = rng.choice(["none", "empty", "raise"])
        self.turn = 0
        self.done = False
        self.cases = [self._counts(rng, True), self._counts(rng, False)]
        plan = [True] * 6 + [False] * 3
        rng.shuffle(plan)
        for want in plan:
            self.cases.append(self._counts(rng, want))
        # a tight case: exactly at the bound (top - 1) * gap + ties == length
        gap = rng.randint(2, self.max_gap)
        ties = rng.randint(1, min(gap, self.artists))
        top = rng.randint(2, 3)
        counts = {"abcdefgh"[i]: top for i in range(ties)}
        filler = (top - 1) * gap + ties - top * ties
        j = ties
        while filler > 0:
            c = min(filler, top - 1)
            counts["abcdefgh"[j]] = c
            filler = filler - c
            j = j + 1
        self.cases.append((counts, gap))
        self.tests, self.labels = [], []
        for counts, gap in self.cases:
            call = f"space_playlist({self._arg(counts)}, {gap})"
            if feasible(counts, gap):
                letters = "".join(a * counts[a] for a in sorted(counts))
                test = (
                    f"assert (lambda s: isinstance(s, str) and sorted(s) == sorted({letters!r}) and "
                    f"all(s[i] != s[j] for i in range(len(s)) for j in range(i + 1, min(len(s), i + {gap}))))"
                    f"({call}), 'not a valid spacing: ' + repr({call})"
                )
                label = f"{call} -> any order of {letters!r} with equal letters >= {gap} apart"
            elif self.kind_out == "raise":
                test = raises_test(call, "ValueError")
                label = f"{call} raises ValueError"
            else:
                test = equality_test(call, None if self.kind_out == "none" else "")
                label = f"{call} == {IMPOSSIBLE[self.kind_out][1]}"
            self.tests.append(test)
            self.labels.append(label)
        self.visible = self.tests[:2]
        return self._task(), {"input": self.kind_in, "impossible": self.kind_out}

    def _task(self):
        examples = "\n".join("  " + label for label in self.labels[:2])
        return (
            "A radio station never plays the same artist twice within a short stretch. Write "
            "space_playlist(tracks, gap) -> str.\n"
            f"- {INPUTS[self.kind_in]}.\n"
            "- gap is an integer >= 2. Return a string that uses every track exactly once (one letter per track) "
            "such that any two equal letters at positions i < j satisfy j - i >= gap.\n"
            "- Any valid order is accepted.\n"
            f"- If no valid order exists, {IMPOSSIBLE[self.kind_out][0]}.\n\n"
            f"Examples:\n{examples}\n\nReply with the function in a ```python block. Hidden tests check other "
            f"inputs; you have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "space_playlist" not in defined_names(code):
            error = "your code does not define space_playlist(tracks, gap) at the top level"
        if error is not None:
            if left <= 0:
                self.done = True
            obs = f"Format error: {error}. Send the function in a ```python block. Submissions left: {left}."
            return obs, 0.0, self.done, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.done = True
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        if left <= 0:
            self.done = True
            return f"{feedback}\nNo submissions left.", 0.0, True, False, info
        return f"{feedback}\nSubmissions left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return (
            "Fill positions left to right; at each position choose, among artists not played in the last gap-1 "
            "slots, one with the most tracks still left. A solution exists exactly when "
            "(largest count - 1) * gap + (number of artists sharing that largest count) <= total tracks, so "
            "check that first and report impossibility without searching."
        )

    def reference_action(self):
        if self.kind_in == "dict":
            counts = "    counts = {a: c for a, c in tracks.items() if c > 0}\n"
        else:
            counts = "    counts = {}\n    for a in tracks:\n        counts[a] = counts.get(a, 0) + 1\n"
        fail = {"none": "return None", "empty": "return ''", "raise": "raise ValueError('no valid order')"}
        return (
            "```python\n"
            "def space_playlist(tracks, gap):\n" + counts +
            "    if not counts:\n"
            "        return ''\n"
            "    n = sum(counts.values())\n"
            "    top = max(counts.values())\n"
            "    ties = sum(1 for c in counts.values() if c == top)\n"
            "    if (top - 1) * gap + ties > n:\n"
            f"        {fail[self.kind_out]}\n"
            "    last = {}\n"
            "    out = []\n"
            "    for pos in range(n):\n"
            "        ready = [a for a in counts if counts[a] > 0 and pos - last.get(a, -gap) >= gap]\n"
            "        pick = min(ready, key=lambda a: (-counts[a], a))\n"
            "        out.append(pick)\n"
            "        counts[pick] -= 1\n"
            "        last[pick] = pos\n"
            "    return ''.join(out)\n"
            "```"
        )
