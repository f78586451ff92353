# shape: a puzzle solved by any sequence of presses that turns every light off (press order never matters)
"""Lights Out on a small grid: pressing a cell toggles it and its orthogonal neighbours. Any sequence of presses
that leaves every light off wins within the press budget; the reference presses the solution of the linear system
over GF(2) that the current board gives, so it adapts to whatever the agent pressed before."""

ENV_SPEC = {
    "name": "LightsOut",
    "domain": "games",
    "description": "Turn every light of a small Lights Out grid off by pressing cells (a press toggles the cell "
                   "and its four neighbours) within a press budget.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {"size": {"min": 3, "max": 4, "default": 3, "description": "grid side length"}},
    "grounding": "Lights Out (Tiger Electronics, 1995): presses commute and two presses cancel, so a solution is a "
                 "set of cells, found by Gaussian elimination over GF(2).",
    "tags": ["puzzle", "lights-out", "linear-algebra", "any-valid-sequence"],
}

ROWS = "ABCD"


def toggled(size, cell):
    r, c = divmod(cell, size)
    out = [cell]
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= r + dr < size and 0 <= c + dc < size:
            out.append((r + dr) * size + c + dc)
    return out


def solve(size, lights):
    """A set of presses that clears ``lights`` (a list of 0/1), or None."""
    n = size * size
    rows = []
    for i in range(n):
        row = [0] * (n + 1)
        for j in range(n):
            row[j] = 1 if i in toggled(size, j) else 0
        row[n] = lights[i]
        rows.append(row)
    pivots = []
    r = 0
    for col in range(n):
        pick = next((k for k in range(r, n) if rows[k][col]), None)
        if pick is None:
            continue
        rows[r], rows[pick] = rows[pick], rows[r]
        for k in range(n):
            if k != r and rows[k][col]:
                rows[k] = [a ^ b for a, b in zip(rows[k], rows[r])]
        pivots.append(col)
        r = r + 1
    if any(row[n] and not any(row[:n]) for row in rows):
        return None
    presses = [0] * n
    for k, col in enumerate(pivots):
        presses[col] = rows[k][n]
    return [i for i in range(n) if presses[i]]


class LightsOut:
    def __init__(self, size=3):
        self.size = size
        self.lights = []
        self.left = 0
        self.done = False

    def reset(self, rng, options):
        n = self.size * self.size
        self.lights = [0] * n
        while sum(self.lights) == 0 or len(solve(self.size, self.lights)) < 3:
            self.lights = [0] * n
            for cell in rng.sample(range(n), rng.randint(3, n - 2)):
                for t in toggled(self.size, cell):
                    self.lights[t] = 1 - self.lights[t]
        self.left = len(solve(self.size, self.lights)) + 6
        self.done = False
        return self._text("Lights Out."), {}

    def _name(self, cell):
        return f"{ROWS[cell // self.size]}{cell % self.size + 1}"

    def _text(self, news):
        rows = []
        for r in range(self.size):
            cells = "".join("#" if self.lights[r * self.size + c] else "." for c in range(self.size))
            rows.append(f"{ROWS[r]} {cells}")
        header = "  " + "".join(str(c + 1) for c in range(self.size))
        return (f"{news} Board (# is on, . is off):\n{header}\n" + "\n".join(rows) + f"\nPress a cell by naming it, "
                f"row letter then column number (e.g. B2); a press toggles the cell and its up, down, left and "
                f"right neighbours. Turn every light off. Presses left: {self.left}.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        word = action.strip().upper().rstrip(".")
        cells = [self._name(i) for i in range(self.size * self.size)]
        if word not in cells:
            info = {"success": False, "format_error": "expected a cell such as B2", "action_is_valid": False}
            return self._text(f"'{word[:12]}' is not a cell."), 0.0, False, False, info
        for t in toggled(self.size, cells.index(word)):
            self.lights[t] = 1 - self.lights[t]
        self.left = self.left - 1
        if sum(self.lights) == 0:
            self.done = True
            return "Every light is off.", 1.0, True, False, {"success": True}
        if self.left == 0:
            self.done = True
            return "No presses left; some lights are still on.", 0.0, True, False, {"success": False}
        return self._text(f"You pressed {word}."), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        need = len(solve(self.size, self.lights) or [])
        return (f"{sum(self.lights)} lights are on and {need} presses clear them from here. Presses commute, so "
                "work row by row: each press below a lit cell turns that cell off.")

    def reference_action(self):
        presses = solve(self.size, self.lights) or [0]
        return self._name(presses[0])
