# shape: any valid output accepted: a room assignment is checked by a checker (validity + optimal room count), not against one answer.
"""Assign lectures to the fewest halls; any valid optimal assignment passes the checker."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "LectureHallAllocation",
    "domain": "code",
    "description": (
        "Write assign_halls(lectures) for half-open (start, end) time intervals: give every lecture a hall number "
        "so that no two overlapping lectures share a hall, using the minimum possible number of halls. Many "
        "assignments are correct; a checker verifies validity and the hall count rather than one expected list."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 3, "max": 10, "default": 6, "description": "hidden timetables checked"},
        "lectures": {"min": 4, "max": 16, "default": 9, "description": "most lectures in one timetable"},
    },
    "grounding": (
        "Interval partitioning: the minimum number of rooms equals the maximum number of intervals overlapping at "
        "one instant; sweeping by start time and reusing the room that frees up earliest (a min-heap) achieves it."
    ),
    "tags": ["code", "greedy", "intervals", "checker", "multi-turn"],
}

SPEC = (
    "Write a Python function assign_halls(lectures). lectures is a list of (start, end) pairs of ints with "
    "start < end; lecture i occupies the half-open interval [start, end), so a lecture ending at 10 and one starting "
    "at 10 do not overlap. Return a list halls of the same length where halls[i] is the hall number of lecture i, "
    "such that: (1) two lectures that overlap never share a hall; (2) the hall numbers used are exactly "
    "0, 1, ..., k-1 where k is the smallest number of halls any valid assignment needs. Any assignment meeting both "
    "rules is accepted."
)


def min_halls(lectures):
    events = sorted([(s, 1) for s, _ in lectures] + [(e, -1) for _, e in lectures])
    best = 0
    now = 0
    for _, delta in events:
        now = now + delta
        best = max(best, now)
    return best


def checker_test(lectures):
    k = min_halls(lectures)
    return (
        "try:\n"
        f"    lectures = {lectures!r}\n"
        "    halls = assign_halls(list(lectures))\n"
        "    assert isinstance(halls, list) and len(halls) == len(lectures), 'expected a list of ' + "
        "str(len(lectures)) + ' hall numbers, got ' + repr(halls)\n"
        "    assert all(type(h) == int for h in halls), 'hall numbers must be ints, got ' + repr(halls)\n"
        f"    assert sorted(set(halls)) == list(range({k})), 'halls used ' + repr(sorted(set(halls))) + "
        f"' but the minimum is {k} (numbered 0..{k - 1})'\n"
        "    for i in range(len(lectures)):\n"
        "        for j in range(i + 1, len(lectures)):\n"
        "            clash = lectures[i][0] < lectures[j][1] and lectures[j][0] < lectures[i][1]\n"
        "            assert not (clash and halls[i] == halls[j]), 'lectures ' + repr(lectures[i]) + ' and ' + "
        "repr(lectures[j]) + ' overlap but share hall ' + repr(halls[i])\n"
        "except TypeError as exc:\n"
        "    raise AssertionError('TypeError: ' + str(exc))"
    )


class LectureHallAllocation:
    def __init__(self, hidden=6, lectures=9):
        self.hidden = hidden
        self.lectures = lectures
        self.timetables = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def draw(self, rng):
        count = rng.randint(4, self.lectures)
        out = []
        for _ in range(count):
            start = rng.randint(8, 17)
            out.append((start, start + rng.randint(1, 3)))
        return out

    def reset(self, rng, options):
        self.timetables = []
        while len(self.timetables) < 1 + self.hidden:
            table = self.draw(rng)
            if min_halls(table) >= 2 and table not in self.timetables:
                self.timetables.append(table)
        self.tests = [checker_test(t) for t in self.timetables]
        self.labels = [f"assign_halls({t!r}) must use exactly {min_halls(t)} halls" for t in self.timetables]
        self.visible = self.tests[:1]
        self.turn = 0
        example = self.timetables[0]
        obs = (
            f"{SPEC}\n\nExample input: {example!r} -- it needs {min_halls(example)} halls; any valid assignment "
            f"with that many halls passes.\n{self.hidden} hidden timetables are checked the same way. Reply with "
            f"the function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )
        return obs, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "assign_halls" not in defined_names(code):
            error = "define assign_halls(lectures) at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, False, left <= 0, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} timetables are validly and optimally assigned.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        return (
            "Process lectures by start time (remember their original positions), keep the halls in use in a "
            "min-heap keyed by end time, and reuse the earliest-freed hall when its end is <= the new start."
        )

    def reference_action(self):
        return (
            "```python\n"
            "import heapq\n\n"
            "def assign_halls(lectures):\n"
            "    order = sorted(range(len(lectures)), key=lambda i: lectures[i])\n"
            "    busy = []\n"
            "    free = []\n"
            "    halls = [0] * len(lectures)\n"
            "    count = 0\n"
            "    for i in order:\n"
            "        start, end = lectures[i]\n"
            "        while busy and busy[0][0] <= start:\n"
            "            heapq.heappush(free, heapq.heappop(busy)[1])\n"
            "        if free:\n"
            "            hall = heapq.heappop(free)\n"
            "        else:\n"
            "            hall = count\n"
            "            count += 1\n"
            "        halls[i] = hall\n"
            "        heapq.heappush(busy, (end, hall))\n"
            "    return halls\n"
            "```"
        )
