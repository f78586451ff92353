# shape: HumanEval/MBPP-style function from a specification, two shown examples, hidden tests drawn per seed.
"""Read a matrix in clockwise spiral order (HumanEval-style function task with seed-varying hidden tests)."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "SpiralOrderRead",
    "domain": "code",
    "description": (
        "Write spiral_order(matrix): the entries of a rectangular list-of-lists read clockwise in a spiral from "
        "the top-left corner. Two examples are shown; hidden tests use other shapes, including single rows and "
        "columns and the empty matrix."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 4, "max": 12, "default": 7, "description": "hidden random matrices"},
        "max_side": {"min": 3, "max": 7, "default": 5, "description": "largest row or column count drawn"},
    },
    "grounding": (
        "Boundary-shrinking traversal: walk the top row, right column, bottom row and left column, then shrink "
        "the four bounds; a single remaining row or column must not be read twice."
    ),
    "tags": ["code", "arrays", "simulation", "multi-turn"],
}

SPEC = (
    "Write a Python function spiral_order(matrix). matrix is a list of rows, all of the same length (it may be "
    "empty, [], and rows are never empty). Return a list of all entries read in clockwise spiral order: along the "
    "top row left to right, down the right column, along the bottom row right to left, up the left column, then "
    "the same on the remaining inner rectangle, until every entry is read exactly once."
)


def spiral(matrix):
    out = []
    if not matrix:
        return out
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            out.append(matrix[top][c])
        for r in range(top + 1, bottom + 1):
            out.append(matrix[r][right])
        if top < bottom:
            for c in range(right - 1, left - 1, -1):
                out.append(matrix[bottom][c])
        if left < right:
            for r in range(bottom - 1, top, -1):
                out.append(matrix[r][left])
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out


class SpiralOrderRead:
    def __init__(self, hidden=7, max_side=5):
        self.hidden = hidden
        self.max_side = max_side
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def draw(self, rng, rows, cols):
        return [[rng.randint(-9, 99) for _ in range(cols)] for _ in range(rows)]

    def reset(self, rng, options):
        shapes = [(rng.randint(2, 3), rng.randint(3, 4)), (rng.randint(3, 4), rng.randint(2, 3))]
        shapes.append((1, rng.randint(2, self.max_side)))
        shapes.append((rng.randint(2, self.max_side), 1))
        while len(shapes) < 2 + self.hidden - 1:
            shapes.append((rng.randint(2, self.max_side), rng.randint(2, self.max_side)))
        matrices = [self.draw(rng, r, c) for r, c in shapes] + [[]]
        self.tests = []
        self.labels = []
        for m in matrices:
            call = f"spiral_order({m!r})"
            self.tests.append(equality_test(call, spiral(m)))
            self.labels.append(f"{call} == {spiral(m)!r}")
        self.visible = self.tests[:2]
        self.turn = 0
        shown = "\n".join("  " + label for label in self.labels[:2])
        obs = (
            f"{SPEC}\n\nExamples:\n{shown}\n\n{len(self.tests) - 2} hidden tests use other matrices. Reply with the "
            f"function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )
        return obs, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "spiral_order" not in defined_names(code):
            error = "define spiral_order(matrix) at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, False, left <= 0, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        return (
            "Keep four bounds (top, bottom, left, right) and shrink them after each lap; guard the bottom-row and "
            "left-column passes so a lone middle row or column is not read twice, and return [] for []."
        )

    def reference_action(self):
        return (
            "```python\n"
            "def spiral_order(matrix):\n"
            "    out = []\n"
            "    if not matrix:\n"
            "        return out\n"
            "    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1\n"
            "    while top <= bottom and left <= right:\n"
            "        for c in range(left, right + 1):\n"
            "            out.append(matrix[top][c])\n"
            "        for r in range(top + 1, bottom + 1):\n"
            "            out.append(matrix[r][right])\n"
            "        if top < bottom:\n"
            "            for c in range(right - 1, left - 1, -1):\n"
            "                out.append(matrix[bottom][c])\n"
            "        if left < right:\n"
            "            for r in range(bottom - 1, top, -1):\n"
            "                out.append(matrix[r][left])\n"
            "        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1\n"
            "    return out\n"
            "```"
        )
