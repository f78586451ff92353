# expect: accepted
"""Count monotone lattice paths through a grid with blocked cells; several tries with closeness feedback."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "GridPaths",
    "domain": "math",
    "description": (
        "A rectangular grid has some blocked cells. Count the paths from the top-left to the bottom-right cell "
        "that move only right or down and avoid blocked cells. Several tries; near misses are flagged as close."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "players": 1,
    "difficulty": {
        "size": {"min": 3, "max": 8, "default": 5, "description": "rows and columns of the grid"},
        "blocked": {"min": 0, "max": 8, "default": 3, "description": "number of blocked cells"},
    },
    "grounding": (
        "Lattice path counting: without obstacles there are C(r+c-2, r-1) monotone paths; with obstacles, dynamic "
        "programming paths(i, j) = paths(i-1, j) + paths(i, j-1) with blocked cells set to 0."
    ),
    "tags": ["combinatorics", "dynamic-programming", "grid", "multi-turn"],
}


def count_paths(grid):
    rows, cols = len(grid), len(grid[0])
    ways = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "#":
                continue
            if r == 0 and c == 0:
                ways[r][c] = 1
                continue
            ways[r][c] = (ways[r - 1][c] if r else 0) + (ways[r][c - 1] if c else 0)
    return ways[rows - 1][cols - 1]


class GridPaths:
    def __init__(self, size=5, blocked=3):
        self.size = size
        self.blocked = blocked
        self.grid = []
        self.answer = 0
        self.turn = 0
        self.done = False

    def reset(self, rng, options):
        while True:
            cells = [(r, c) for r in range(self.size) for c in range(self.size)
                     if (r, c) not in ((0, 0), (self.size - 1, self.size - 1))]
            walls = set(rng.sample(cells, min(self.blocked, len(cells))))
            self.grid = ["".join("#" if (r, c) in walls else "." for c in range(self.size)) for r in range(self.size)]
            self.answer = count_paths(self.grid)
            if self.answer > 0:
                break
        self.turn = 0
        self.done = False
        return self._text("Count the paths."), {"size": self.size}

    def _text(self, lead):
        picture = "\n".join(self.grid)
        return (
            f"{lead}\nGrid ('#' blocked, '.' open), start top-left, finish bottom-right:\n{picture}\n"
            f"How many paths move only right or down and avoid blocked cells? Answer \\boxed{{n}}. "
            f"Turns left: {ENV_SPEC['max_turns'] - self.turn}."
        )

    def step(self, action):
        self.turn = self.turn + 1
        out_of_turns = self.turn >= ENV_SPEC["max_turns"]
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            self.done = out_of_turns
            return self._text("Answer with one integer in \\boxed{n}."), 0.0, False, out_of_turns, {
                "success": False, "format_error": "expected an integer", "action_is_valid": False}
        guess = value.numerator
        if guess == self.answer:
            self.done = True
            return "Correct.", 1.0, True, False, {"success": True}
        # A guess within 25% of the count is flagged as close (feedback only).
        near = abs(guess - self.answer) <= max(1, self.answer // 4)
        reward = 0.0
        lead = f"{safe_echo(given)} is {'close but ' if near else ''}not the count."
        self.done = out_of_turns
        if out_of_turns:
            return f"{lead} Out of turns; the count was {self.answer}.", reward, False, True, {"success": False}
        return self._text(lead), reward, False, False, {"success": False}

    def privileged_hint(self):
        return ("Fill a table row by row: each open cell gets the sum of the cell above and the cell to its left; "
                "blocked cells hold 0 and the first row/column only inherit along their line.")

    def reference_action(self):
        return f"\\boxed{{{self.answer}}}"
