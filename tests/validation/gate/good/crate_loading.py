# expect: accepted
"""Load crates onto a limited number of trucks: any valid packing is accepted, checked by a checker (bin packing)."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "CrateLoadingAnyPacking",
    "domain": "code",
    "description": (
        "Write pack_crates(weights, capacity, trucks): split the crate weights into at most `trucks` loads, each "
        "summing to at most capacity, using every crate exactly once. Every hidden instance is feasible and tight; "
        "any valid packing is accepted by a checker. Feedback after each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "trucks": {"min": 2, "max": 5, "default": 3, "description": "trucks (bins) per hidden instance"},
        "hidden": {"min": 3, "max": 10, "default": 6, "description": "hidden instances"},
    },
    "grounding": (
        "Bin packing as in truck and container loading: first-fit decreasing is fast but not always feasible when "
        "loads must be nearly full; a depth-first search over crates in decreasing weight, skipping trucks with an "
        "equal current load, finds a packing for small instances."
    ),
    "tags": ["code", "search", "bin-packing", "any-valid-output", "checker", "multi-turn"],
}

SPEC_TEXT = (
    "Write pack_crates(weights, capacity, trucks). weights is a list of positive ints (crate weights, repeats "
    "possible), capacity a positive int, trucks a positive int. Return a list of at most `trucks` lists (the loads); "
    "every crate weight must appear in exactly one load (as a multiset the loads together equal weights), and each "
    "load's sum must be <= capacity. Empty loads are allowed. Every test instance has at least one valid packing; "
    "any valid packing is accepted."
)

SOLUTION = '''def pack_crates(weights, capacity, trucks):
    items = sorted(weights, reverse=True)
    loads = [[] for _ in range(trucks)]
    sums = [0] * trucks

    def place(i):
        if i == len(items):
            return True
        tried = set()
        for t in range(trucks):
            if sums[t] + items[i] > capacity or sums[t] in tried:
                continue
            tried.add(sums[t])
            sums[t] += items[i]
            loads[t].append(items[i])
            if place(i + 1):
                return True
            sums[t] -= items[i]
            loads[t].pop()
        return False

    if not place(0):
        return None
    return [load for load in loads if load]
'''


def check_test(weights, capacity, trucks):
    return (
        f"w = {weights!r}\n"
        f"r = pack_crates(w, {capacity}, {trucks})\n"
        "assert type(r) is list and all(type(load) is list for load in r), 'expected a list of lists, got ' + repr(r)\n"
        f"assert len(r) <= {trucks}, 'uses ' + repr(len(r)) + ' trucks'\n"
        f"assert all(sum(load) <= {capacity} for load in r), 'a load is over capacity: ' + repr(r)\n"
        f"assert sorted(x for load in r for x in load) == {sorted(weights)!r}, 'crates missing or duplicated: ' + repr(r)"
    )


class CrateLoadingAnyPacking:
    def __init__(self, trucks=3, hidden=6):
        self.trucks = trucks
        self.hidden = hidden
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _instance(self, rng):
        capacity = rng.choice([20, 24, 30, 36, 40])
        weights = []
        for _ in range(self.trucks):
            room = capacity - rng.choice([0, 0, 0, 1])
            parts = rng.randint(2, 4)
            cuts = sorted(rng.sample(range(1, room), parts - 1))
            bounds = [0] + cuts + [room]
            weights.extend(bounds[i + 1] - bounds[i] for i in range(parts))
        rng.shuffle(weights)
        return weights, capacity

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        self.tests.append(check_test([5, 4, 3, 3, 3, 2], 10, 2))
        self.labels.append("example pack_crates([5, 4, 3, 3, 3, 2], 10, 2)")
        self.visible.append(self.tests[0])
        for _ in range(self.hidden):
            weights, capacity = self._instance(rng)
            self.tests.append(check_test(weights, capacity, self.trucks))
            self.labels.append(f"pack_crates({weights!r}, {capacity}, {self.trucks})")
        obs = (
            f"{SPEC_TEXT}\n\nExample: pack_crates([5, 4, 3, 3, 3, 2], 10, 2) may return [[5, 3, 2], [4, 3, 3]] "
            "(first-fit decreasing gives [[5, 4], [3, 3, 3], [2]], one truck too many).\n\nReply with the "
            f"function in a ```python block. Hidden instances use {self.trucks} trucks. You have "
            f"{ENV_SPEC['max_turns']} submissions."
        )
        return obs, {"trucks": self.trucks, "hidden_tests": self.hidden}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "pack_crates" not in defined_names(code):
            error = "your code does not define pack_crates() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} checks pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "Loads here are nearly full, so first-fit decreasing often needs an extra truck. Search instead: take "
            "crates heaviest first, try each truck that still has room, and skip a truck whose current load equals "
            "one already tried for this crate; backtrack when a crate fits nowhere."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
