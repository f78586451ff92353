# shape: one-player restricted Tower of Hanoi (adjacent pegs only) from random legal starts to a seed-drawn ...
"""Tower of Hanoi with the adjacency restriction: discs may only move between neighbouring pegs."""

from collections import deque

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "HanoiAdjacentPegs",
    "domain": "games",
    "description": (
        "Restricted Tower of Hanoi: three pegs A, B, C in a line and discs of sizes 1 (smallest) upward, "
        "scattered over the pegs in a legal position. A move takes the top disc of one peg to a neighbouring peg "
        "(A<->B or B<->C only; A and C are not neighbours) and may never put a disc on a smaller one. Goal: "
        "stack every disc on the target peg named in the observation. Reply 'move X Y' (e.g. 'move A B'). "
        "Illegal moves are refused and change nothing. Reward 1 for reaching the goal within the turn limit, "
        "else 0."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 45,
    "players": 1,
    "difficulty": {
        "discs": {"min": 3, "max": 5, "default": 4, "description": "number of discs"},
    },
    "grounding": "Tower of Hanoi variant with adjacent-peg moves only (Scorer, Grundy and Smith, 1944): moving n "
                 "discs end to end needs 3^n - 1 moves.",
    "tags": ["puzzle", "single-player", "planning", "hanoi"],
}

PEGS = "ABC"
MOVES = [(0, 1), (1, 0), (1, 2), (2, 1)]


def top(state, peg):
    on = [d for d in range(len(state)) if state[d] == peg]
    return min(on) if on else None


def legal(state, a, b):
    d = top(state, a)
    if d is None or (a, b) not in MOVES:
        return False
    t = top(state, b)
    return t is None or t > d


def distances(n, target):
    goal = tuple([target] * n)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        cur = queue.popleft()
        for a, b in MOVES:
            if legal(cur, a, b):
                d = top(cur, a)
                nxt = cur[:d] + (b,) + cur[d + 1:]
                if nxt not in dist:
                    dist[nxt] = dist[cur] + 1
                    queue.append(nxt)
    return dist


class HanoiAdjacentPegs:
    def __init__(self, discs=4):
        self.n = discs
        self.target = 2
        self.state = tuple([0] * self.n)
        self.dist = {}
        self.moves = 0
        self.done = False

    def reset(self, rng, options):
        self.target = rng.choice([0, 2, 1])
        self.dist = distances(self.n, self.target)
        pool = sorted(s for s in self.dist if 8 <= self.dist[s] <= 32)
        self.state = rng.choice(pool)
        self.moves = 0
        self.done = False
        return self.observation("A new position."), {"success": False, "target": PEGS[self.target]}

    def render(self):
        lines = []
        for p in range(3):
            discs = sorted((d + 1 for d in range(self.n) if self.state[d] == p), reverse=True)
            lines.append(f"{PEGS[p]}: " + (" ".join(str(d) for d in discs) if discs else "(empty)"))
        return "\n".join(lines)

    def observation(self, note):
        return (f"{note}\nPegs (bottom to top, 1 = smallest):\n{self.render()}\nTarget peg: "
                f"{PEGS[self.target]}. Moves made: {self.moves}. Only A<->B and B<->C moves are allowed. "
                f"Reply 'move X Y'.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        tokens = [t for t in move_tokens(action, 60) if t not in ("move", "from", "to", "peg")]
        if len(tokens) == 1 and len(tokens[0]) == 2:
            tokens = [tokens[0][0], tokens[0][1]]
        if len(tokens) != 2 or not all(t in ("a", "b", "c") for t in tokens):
            return (self.observation(f"Could not read {safe_echo(action)!r}: reply 'move X Y' with pegs A, B, C."),
                    0.0, False, False, {"success": False, "action_is_valid": False,
                                        "format_error": "expected 'move X Y' with X and Y among A, B, C"})
        a, b = "abc".index(tokens[0]), "abc".index(tokens[1])
        if not legal(self.state, a, b):
            if (a, b) not in MOVES:
                why = "pegs A and C are not neighbours (and a move needs two different pegs)"
            elif top(self.state, a) is None:
                why = f"peg {PEGS[a]} is empty"
            else:
                why = f"disc {top(self.state, a) + 1} cannot go on the smaller disc {top(self.state, b) + 1}"
            return self.observation(f"Illegal move {PEGS[a]} -> {PEGS[b]}: {why}."), 0.0, False, False, \
                {"success": False, "action_is_valid": False}
        d = top(self.state, a)
        self.state = self.state[:d] + (b,) + self.state[d + 1:]
        self.moves = self.moves + 1
        info = {"success": False, "action_is_valid": True}
        if self.dist[self.state] == 0:
            self.done = True
            info["success"] = True
            return f"Moved disc {d + 1} {PEGS[a]} -> {PEGS[b]}. All discs are on {PEGS[self.target]}: solved " \
                   f"in {self.moves} moves!\n{self.render()}", 1.0, True, False, info
        return self.observation(f"Moved disc {d + 1} {PEGS[a]} -> {PEGS[b]}."), 0.0, False, False, info

    def privileged_hint(self):
        if self.done:
            return "The puzzle is over."
        wrong = [d for d in range(self.n) if self.state[d] != self.target]
        big = max(wrong) + 1 if wrong else 0
        return (f"The goal is {self.dist[self.state]} moves away with best play. The largest disc not yet on "
                f"{PEGS[self.target]} is disc {big}; until it arrives, every smaller disc must keep clearing "
                f"the pegs it passes through. Moving a tower of k discs from one end to the other takes "
                f"3^k - 1 moves; to the middle or away from it, (3^k - 1)/2.")

    def reference_action(self):
        if self.done:
            return "move A B"
        for a, b in MOVES:
            if legal(self.state, a, b):
                d = top(self.state, a)
                nxt = self.state[:d] + (b,) + self.state[d + 1:]
                if self.dist[nxt] == self.dist[self.state] - 1:
                    return f"move {PEGS[a]} {PEGS[b]}"
        return "move A B"
