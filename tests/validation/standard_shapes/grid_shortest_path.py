# shape: any shortest path is accepted (grid routing where many move strings of the minimal length are right)
"""Route from S to G on a walled grid in as few steps as possible: the verifier walks the given moves and accepts
any path that reaches the goal in the shortest number of steps, never one expected string."""

from collections import deque

ENV_SPEC = {
    "name": "GridShortestPath",
    "domain": "math",
    "description": "Give a shortest route from S to G on a grid with walls as a string of U, D, L, R moves; any "
                   "route of minimal length is accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"size": {"min": 5, "max": 10, "default": 7, "description": "grid side length"}},
    "grounding": "Breadth-first search on a 4-connected grid gives the shortest path length; every path of that "
                 "length is optimal.",
    "tags": ["grid", "shortest-path", "bfs", "any-valid-output"],
}

MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


class GridShortestPath:
    def __init__(self, size=7):
        self.size = size
        self.walls = set()
        self.start = (0, 0)
        self.goal = (0, 0)
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        n = self.size
        while True:
            self.walls = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.28}
            free = [(r, c) for r in range(n) for c in range(n) if (r, c) not in self.walls]
            self.start, self.goal = rng.sample(free, 2)
            distance = self.distances().get(self.goal)
            if distance is not None and distance >= n // 2 + 2:
                break
        return (f"Grid ({n}x{n}, # is a wall, rows top to bottom):\n{self.render()}\nGive a shortest route from S to "
                "G as one string of moves U, D, L, R (up, down, left, right), e.g. RRDDL. Any route of the "
                "shortest length is accepted; you have 2 tries."), {}

    def render(self):
        rows = []
        for r in range(self.size):
            rows.append("".join("S" if (r, c) == self.start else "G" if (r, c) == self.goal else
                                "#" if (r, c) in self.walls else "." for c in range(self.size)))
        return "\n".join(rows)

    def distances(self):
        seen = {self.start: 0}
        queue = deque([self.start])
        while queue:
            cell = queue.popleft()
            for dr, dc in MOVES.values():
                nxt = (cell[0] + dr, cell[1] + dc)
                if (nxt not in seen and nxt not in self.walls and 0 <= nxt[0] < self.size
                        and 0 <= nxt[1] < self.size):
                    seen[nxt] = seen[cell] + 1
                    queue.append(nxt)
        return seen

    def walk(self, moves):
        cell = self.start
        for move in moves:
            dr, dc = MOVES[move]
            cell = (cell[0] + dr, cell[1] + dc)
            if cell in self.walls or not (0 <= cell[0] < self.size and 0 <= cell[1] < self.size):
                return None
        return cell

    def step(self, action):
        self.turn = self.turn + 1
        last = self.turn >= 2
        moves = action.strip().upper().replace(" ", "").replace(",", "")
        if not moves or any(m not in MOVES for m in moves) or len(moves) > 4 * self.size * self.size:
            info = {"success": False, "format_error": "expected a string of U, D, L, R"}
            return "Reply with a string of the letters U, D, L and R.", 0.0, last, False, info
        end = self.walk(moves)
        if end is None:
            return "That route hits a wall or leaves the grid.", 0.0, last, False, {"success": False}
        if end != self.goal:
            return "That route does not end at G.", 0.0, last, False, {"success": False}
        if len(moves) != self.distances()[self.goal]:
            return f"That route reaches G in {len(moves)} moves; a shorter one exists.", 0.0, last, False, \
                {"success": False}
        return "A shortest route.", 1.0, True, False, {"success": True}

    def privileged_hint(self):
        return "Search outwards from S in rings of equal distance until a ring reaches G, then trace back."

    def reference_action(self):
        far = self.distances()
        path, cell = [], self.goal
        while cell != self.start:
            for move, (dr, dc) in MOVES.items():
                prev = (cell[0] - dr, cell[1] - dc)
                if far.get(prev) == far[cell] - 1:
                    path.append(move)
                    cell = prev
                    break
        return "".join(reversed(path))
