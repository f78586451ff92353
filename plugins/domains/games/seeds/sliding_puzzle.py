"""The 8-puzzle: slide numbered tiles into the gap until the board reads 1-8 in order."""

import heapq

from spade_domains.games.verify import move_integers, safe_echo

ENV_SPEC = {
    "name": "SlidingPuzzle",
    "domain": "games",
    "description": (
        "A 3x3 sliding-tile puzzle (tiles 1-8 and a gap) scrambled by random moves. Each turn name a tile next "
        "to the gap to slide it in; reach 1 2 3 / 4 5 6 / 7 8 _ within the move budget."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 80,
    "players": 1,
    "difficulty": {
        "scramble": {"min": 6, "max": 24, "default": 12,
                     "description": "random moves applied to the solved board (longer solutions)"},
    },
    "grounding": (
        "The 15-puzzle family (Sam Loyd's 1880s craze; Johnson and Story 1879: only half of all arrangements are "
        "solvable). Optimal solutions are found with A* and the admissible Manhattan-distance heuristic; every "
        "8-puzzle position is at most 31 moves from the goal."
    ),
    "tags": ["puzzle", "planning", "search", "sliding-tiles"],
}

GOAL = "12345678_"
SIDE = 3
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
                "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six",
                "twenty-seven", "twenty-eight", "twenty-nine", "thirty", "thirty-one"]


def neighbours(index):
    r, c = index // SIDE, index % SIDE
    found = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIDE and 0 <= cc < SIDE:
            found.append(rr * SIDE + cc)
    return found


def slide(state, tile_index):
    """The state after the tile at `tile_index` slides into the gap."""
    gap = state.index("_")
    cells = list(state)
    cells[gap], cells[tile_index] = cells[tile_index], "_"
    return "".join(cells)


def manhattan(state):
    total = 0
    for i in range(len(state)):
        ch = state[i]
        if ch != "_":
            goal = int(ch) - 1
            total = total + abs(i // SIDE - goal // SIDE) + abs(i % SIDE - goal % SIDE)
    return total


def solve(start):
    """An optimal list of tiles to slide (A* with the Manhattan heuristic)."""
    if start == GOAL:
        return []
    frontier = [(manhattan(start), 0, start)]
    parent = {start: None}
    cost = {start: 0}
    while frontier:
        f, g, state = heapq.heappop(frontier)
        if state == GOAL:
            break
        if g > cost[state]:
            continue
        gap = state.index("_")
        for j in neighbours(gap):
            nxt = slide(state, j)
            if nxt not in cost or g + 1 < cost[nxt]:
                cost[nxt] = g + 1
                parent[nxt] = (state, state[j])
                heapq.heappush(frontier, (g + 1 + manhattan(nxt), g + 1, nxt))
    plan = []
    state = GOAL
    while parent[state] is not None:
        state, tile = parent[state]
        plan.append(tile)
    plan.reverse()
    return plan


class SlidingPuzzle:
    def __init__(self, scramble=12):
        self.scramble = scramble
        self.state = GOAL
        self.moves = 0
        self.plan = []
        self.plan_from = ""
        self.done = False

    def reset(self, rng, options):
        state = GOAL
        while state == GOAL:
            state = GOAL
            previous = -1
            for _ in range(self.scramble):
                gap = state.index("_")
                choices = [j for j in neighbours(gap) if j != previous]
                pick = rng.choice(choices)
                state = slide(state, pick)
                previous = gap
        self.state = state
        self.moves = 0
        self.plan = solve(state)
        self.plan_from = state
        self.done = False
        return self.observation("Puzzle start."), {"moves": 0}

    def render(self):
        return "\n".join(" ".join(self.state[r * SIDE:(r + 1) * SIDE]) for r in range(SIDE))

    def movable(self):
        gap = self.state.index("_")
        return sorted(self.state[j] for j in neighbours(gap))

    def observation(self, note):
        return (
            f"{note}\nBoard (_ is the gap):\n{self.render()}\nGoal:\n1 2 3\n4 5 6\n7 8 _\n"
            f"Tiles that can slide into the gap: {', '.join(self.movable())}. Reply with one tile number."
        )

    def step(self, action):
        numbers = move_integers(action, 40)
        if len(numbers) != 1 or not 1 <= numbers[0] <= 8:
            obs = self.observation(f"Invalid move {safe_echo(action)!r}: reply with one tile number (1-8).")
            return obs, 0.0, False, False, {"format_error": "expected one tile number 1-8", "moves": self.moves}
        tile = str(numbers[0])
        if tile not in self.movable():
            obs = self.observation(f"Tile {tile} is not next to the gap and cannot slide.")
            return obs, 0.0, False, False, {"action_is_valid": False, "moves": self.moves}
        self.state = slide(self.state, self.state.index(tile))
        self.moves = self.moves + 1
        if self.state == GOAL:
            self.done = True
            obs = f"Solved in {self.moves} moves!\n{self.render()}"
            return obs, 1.0, True, False, {"success": True, "moves": self.moves}
        return self.observation(f"Slid tile {tile}."), 0.0, False, False, {"success": False, "moves": self.moves}

    def current_plan(self):
        """The cached optimal plan, advanced by one when the last slide followed it, else solved afresh."""
        if self.plan_from == self.state:
            return self.plan
        if self.plan and slide(self.plan_from, self.plan_from.index(self.plan[0])) == self.state:
            self.plan = self.plan[1:]
        else:
            self.plan = solve(self.state)
        self.plan_from = self.state
        return self.plan

    def privileged_hint(self):
        if self.done:
            return "Solved."
        length = len(self.current_plan())
        words = NUMBER_WORDS[length] if length < len(NUMBER_WORDS) else "many"
        return (
            f"An optimal solution from here takes {words} moves. Manhattan distance is a lower bound on the moves "
            f"left; never undo your previous slide."
        )

    def reference_action(self):
        if self.done:
            return "1"
        plan = self.current_plan()
        return plan[0] if plan else "1"
