"""Grid navigation with the Gymnasium tutorial's _get_obs/_get_info helpers."""

ENV_SPEC = {
    "name": "GridWalk",
    "domain": "games",
    "description": "Walk from the corner to the goal on a small grid with walls.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 40,
    "difficulty": {"size": {"min": 4, "max": 9, "default": 5}},
}

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class GridWalk:
    def __init__(self, size=5):
        self.size = size
        self.pos = (0, 0)
        self.goal = (size - 1, size - 1)
        self.walls = set()
        self.steps = 0
        self._visited = set()

    def _get_obs(self):
        rows = []
        for r in range(self.size):
            row = ""
            for c in range(self.size):
                if (r, c) == self.pos:
                    row += "A"
                elif (r, c) == self.goal:
                    row += "G"
                elif (r, c) in self.walls:
                    row += "#"
                else:
                    row += "."
            rows.append(row)
        return "\n".join(rows)

    def _get_info(self):
        return {"distance": abs(self.pos[0] - self.goal[0]) + abs(self.pos[1] - self.goal[1])}

    def reset(self, rng, options):
        self.pos, self.steps = (0, 0), 0
        self.walls = set()
        while len(self.walls) < self.size - 2:
            cell = (rng.randint(1, self.size - 2), rng.randint(1, self.size - 2))
            self.walls.add(cell)
        self._visited = {self.pos}
        return self._get_obs(), self._get_info()

    def step(self, action):
        self.steps += 1
        move = MOVES.get(action.strip().lower())
        if move is None:
            info = self._get_info()
            info["format_error"] = f"unknown move {action!r}; use one of {sorted(MOVES)}"
            return self._get_obs(), -0.1, False, False, info
        dr, dc = move
        r, c = self.pos
        nr, nc = r + dr, c + dc
        if 0 <= nr < self.size and 0 <= nc < self.size and (nr, nc) not in self.walls:
            self.pos = (nr, nc)
        self._visited.add(self.pos)
        done = self.pos == self.goal
        info = self._get_info()
        info["success"] = done
        return self._get_obs(), 1.0 if done else -0.01, done, False, info

    def privileged_hint(self):
        return f"The walls are at {sorted(self.walls)}."

    def reference_action(self):
        from collections import deque

        start, seen, queue = self.pos, {self.pos}, deque([(self.pos, None)])
        while queue:
            (r, c), first = queue.popleft()
            if (r, c) == self.goal:
                return first or "right"
            for name, (dr, dc) in sorted(MOVES.items()):
                nxt = (r + dr, c + dc)
                if 0 <= nxt[0] < self.size and 0 <= nxt[1] < self.size and nxt not in self.walls and nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, first if first else name))
        return "right" if start else "down"
