# shape: one-player tiny Sokoban (5x5 interior, 1-2 boxes, random walls, BFS-verified solvable), restart allowed.
"""A tiny Sokoban room: push the boxes onto the goal squares."""

from collections import deque

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "SokobanTinyRoom",
    "domain": "games",
    "description": (
        "Sokoban in a small walled room. '#' wall, '@' you, '$' box, '.' goal, '*' box on a goal, '+' you on a "
        "goal. Reply 'up', 'down', 'left' or 'right' (or u/d/l/r) to walk one square; walking into a box pushes "
        "it one square if the square beyond is free (not a wall or another box). You cannot pull boxes. Walking "
        "into a wall, or pushing a blocked box, is refused and changes nothing. 'restart' puts the room back as "
        "it started (it costs a turn). Reward 1 when every box is on a goal within the turn limit, else 0."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "boxes": {"min": 1, "max": 2, "default": 1, "description": "number of boxes (and goals) in the room"},
    },
    "grounding": "Sokoban (Hiroyuki Imabayashi, 1981): the warehouse-keeper puzzle; boxes can only be pushed.",
    "tags": ["puzzle", "single-player", "planning", "sokoban"],
}

W = 7
DIRS = {"up": -W, "down": W, "left": -1, "right": 1}
ALIASES = {"u": "up", "d": "down", "l": "left", "r": "right", "north": "up", "south": "down", "west": "left",
           "east": "right"}


def bfs(walls, goals, player, boxes, limit=30):
    """First direction of a shortest solution, and its length; (None, -1) when none within the limit."""
    start = (player, boxes)
    seen = {start: (None, 0)}
    queue = deque([start])
    while queue:
        pos, bx = queue.popleft()
        first, dist = seen[(pos, bx)]
        if all(b in goals for b in bx):
            return first, dist
        if dist >= limit:
            continue
        for name in ("up", "down", "left", "right"):
            d = DIRS[name]
            nxt = pos + d
            if nxt in walls:
                continue
            nb = bx
            if nxt in bx:
                beyond = nxt + d
                if beyond in walls or beyond in bx:
                    continue
                nb = tuple(sorted(beyond if b == nxt else b for b in bx))
            key = (nxt, nb)
            if key not in seen:
                seen[key] = (first or name, dist + 1)
                queue.append(key)
    return None, -1


class SokobanTinyRoom:
    def __init__(self, boxes=1):
        self.n_boxes = boxes
        self.walls = frozenset()
        self.goals = ()
        self.start = (0, ())
        self.player = 0
        self.boxes = ()
        self.done = False

    def reset(self, rng, options):
        self.done = False
        for _ in range(400):
            walls = set()
            for i in range(W * W):
                r, c = divmod(i, W)
                if r in (0, W - 1) or c in (0, W - 1):
                    walls.add(i)
            inner = [i for i in range(W * W) if i not in walls]
            for cell in rng.sample(inner, rng.randint(3, 6)):
                walls.add(cell)
            free = [i for i in inner if i not in walls]
            picks = rng.sample(free, 2 * self.n_boxes + 1)
            goals = tuple(sorted(picks[:self.n_boxes]))
            boxes = tuple(sorted(picks[self.n_boxes:2 * self.n_boxes]))
            player = picks[-1]
            first, dist = bfs(frozenset(walls), goals, player, boxes, 24)
            if first is not None and dist >= 8:
                break
        self.walls, self.goals = frozenset(walls), goals
        self.start = (player, boxes)
        self.player, self.boxes = player, boxes
        return self.observation("A new room."), {"success": False}

    def render(self):
        rows = []
        for r in range(W):
            row = ""
            for c in range(W):
                i = r * W + c
                if i in self.walls:
                    row += "#"
                elif i == self.player:
                    row += "+" if i in self.goals else "@"
                elif i in self.boxes:
                    row += "*" if i in self.goals else "$"
                else:
                    row += "." if i in self.goals else " "
            rows.append(row)
        return "\n".join(rows)

    def observation(self, note):
        placed = sum(1 for b in self.boxes if b in self.goals)
        return (f"{note}\n{self.render()}\nBoxes on goals: {placed}/{self.n_boxes}. "
                f"Reply up, down, left, right or restart.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        tokens = move_tokens(action, 40)
        if tokens and tokens[0] in ("move", "go", "walk", "push"):
            tokens = tokens[1:]
        word = ALIASES.get(tokens[0], tokens[0]) if len(tokens) == 1 else None
        if word == "restart":
            self.player, self.boxes = self.start
            return self.observation("The room is back as it started."), 0.0, False, False, \
                {"success": False, "action_is_valid": True}
        if word not in DIRS:
            return self.observation(f"Could not read {safe_echo(action)!r}: reply up, down, left, right or "
                                    f"restart."), 0.0, False, False, \
                {"success": False, "action_is_valid": False,
                 "format_error": "expected one of up, down, left, right (u/d/l/r) or restart"}
        d = DIRS[word]
        nxt = self.player + d
        if nxt in self.walls:
            return self.observation(f"A wall blocks {word}."), 0.0, False, False, \
                {"success": False, "action_is_valid": False}
        note = f"You moved {word}."
        if nxt in self.boxes:
            beyond = nxt + d
            if beyond in self.walls or beyond in self.boxes:
                return self.observation(f"The box {word} of you cannot move: something is behind it."), 0.0, \
                    False, False, {"success": False, "action_is_valid": False}
            self.boxes = tuple(sorted(beyond if b == nxt else b for b in self.boxes))
            note = f"You pushed a box {word}."
        self.player = nxt
        if all(b in self.goals for b in self.boxes):
            self.done = True
            return f"{note} Every box is on a goal: solved!\n{self.render()}", 1.0, True, False, \
                {"success": True, "action_is_valid": True}
        return self.observation(note), 0.0, False, False, {"success": False, "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The puzzle is over."
        first, dist = bfs(self.walls, self.goals, self.player, self.boxes)
        if first is None:
            return "No solution exists from here (a box is stuck against walls or another box): restart."
        return (f"The room can be solved in {dist} more moves. Plan the pushes first: a box pushed into a corner "
                f"that is not a goal, or along a wall with no goal on it, can never be rescued. Then walk round "
                f"to the side opposite each push.")

    def reference_action(self):
        if self.done:
            return "restart"
        first, dist = bfs(self.walls, self.goals, self.player, self.boxes)
        return first or "restart"
