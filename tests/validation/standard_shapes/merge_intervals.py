# shape: an interval/set task whose answer is a set (the merged intervals, listed in any order)
"""Merge overlapping closed intervals: the answer is the set of disjoint intervals that covers the same points, so
the verifier compares sets of pairs and accepts them in any order and with any separators between them."""

import re

ENV_SPEC = {
    "name": "MergeIntervals",
    "domain": "math",
    "description": "Merge a list of closed integer intervals into the disjoint intervals that cover the same "
                   "points; the merged intervals may be listed in any order.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"intervals": {"min": 4, "max": 14, "default": 8, "description": "intervals to merge"}},
    "grounding": "Interval union: sort by start, extend the current interval while the next one starts at or "
                 "before its end.",
    "tags": ["intervals", "sets", "any-order", "sorting"],
}

PAIR = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")


def merged(intervals):
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


class MergeIntervals:
    def __init__(self, intervals=8):
        self.count = intervals
        self.intervals = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.intervals = []
        while len(merged(self.intervals)) < 2 or len(merged(self.intervals)) == len(self.intervals):
            self.intervals = []
            for _ in range(self.count):
                start = rng.randint(0, 60)
                self.intervals.append((start, start + rng.randint(1, 12)))
        shown = " ".join(f"[{a}, {b}]" for a, b in self.intervals)
        return (f"Closed intervals: {shown}. Merge every pair that shares a point (so [1, 4] and [4, 6] become "
                "[1, 6], while [1, 3] and [4, 6] stay apart) until no two overlap. Reply with the merged "
                "intervals written as [start, end], in any order, e.g. [2, 9] [12, 15]. You have 2 tries."), {}

    def step(self, action):
        self.turn = self.turn + 1
        last = self.turn >= 2
        pairs = [(int(a), int(b)) for a, b in PAIR.findall(action[:2000])]
        if not pairs or PAIR.sub("", action[:2000]).strip(" ,;.\n") != "":
            info = {"success": False, "format_error": "expected intervals written as [start, end]"}
            return "Write the intervals as [start, end], e.g. [2, 9] [12, 15].", 0.0, last, False, info
        if sorted(pairs) == merged(self.intervals) and len(set(pairs)) == len(pairs):
            return "Correct: those are the merged intervals.", 1.0, True, False, {"success": True}
        return (f"Not the merged set ({len(pairs)} intervals given).", 0.0, last, False, {"success": False})

    def privileged_hint(self):
        return "Sort the intervals by their start, then sweep once, extending the current one while they touch."

    def reference_action(self):
        return " ".join(f"[{a}, {b}]" for a, b in merged(self.intervals))
