"""Tower of Hanoi from a random legal position: gather every disk on peg C, one move per turn."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "TowerOfHanoi",
    "domain": "games",
    "description": (
        "Disks of sizes 1..n sit on pegs A, B and C (never a larger disk on a smaller one). Move one top disk "
        "per turn ('move A C') to stack all disks on peg C within a move budget."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 300,
    "players": 1,
    "difficulty": {
        "disks": {"min": 3, "max": 7, "default": 4, "description": "number of disks (up to 2^n - 1 moves)"},
    },
    "grounding": (
        "The Tower of Hanoi (E. Lucas, 1883): moving n disks takes 2^n - 1 moves at least; from any legal "
        "position the largest disk not on the target peg must move there once, after the smaller disks are "
        "gathered on the third peg (the recursive solution)."
    ),
    "tags": ["puzzle", "recursion", "planning"],
}

PEGS = "ABC"
TARGET = 2


def first_move(pos, n, target):
    """The first move (from_peg, to_peg) of the shortest way to gather disks 1..n on `target`, or None."""
    while n > 0 and pos[n] == target:
        n = n - 1
    if n == 0:
        return None
    other = 3 - pos[n] - target
    before = first_move(pos, n - 1, other)
    if before is None:
        return pos[n], target
    return before


def moves_needed(pos, n, target):
    """Length of the shortest way to gather disks 1..n on `target`."""
    if n == 0:
        return 0
    if pos[n] == target:
        return moves_needed(pos, n - 1, target)
    other = 3 - pos[n] - target
    return moves_needed(pos, n - 1, other) + 1 + (2 ** (n - 1) - 1)


class TowerOfHanoi:
    def __init__(self, disks=4):
        self.n = disks
        self.pos = [0] * (disks + 1)
        self.budget = 0
        self.moves = 0
        self.done = False

    def reset(self, rng, options):
        pos = [0] + [rng.randint(0, 2) for _ in range(self.n)]
        while moves_needed(pos, self.n, TARGET) < 2 ** (self.n - 1):
            pos = [0] + [rng.randint(0, 2) for _ in range(self.n)]
        self.pos = pos
        self.moves = 0
        self.budget = 2 * moves_needed(pos, self.n, TARGET) + 4
        self.done = False
        obs = (
            f"Tower of Hanoi with {self.n} disks (1 = smallest). Gather all disks on peg C; a disk may only go on "
            f"an empty peg or a larger disk. Reply 'move X Y' to move the top disk of peg X onto peg Y. "
            f"Move budget: {self.budget}.\n{self.render()}"
        )
        return obs, {"moves": 0}

    def stack(self, peg):
        return [d for d in range(self.n, 0, -1) if self.pos[d] == peg]

    def render(self):
        lines = []
        for peg in range(3):
            disks = self.stack(peg)
            lines.append(f"{PEGS[peg]}: {' '.join(str(d) for d in disks) if disks else '(empty)'}")
        return "\n".join(lines) + "  (bottom to top)"

    def parse(self, action):
        tokens = move_tokens(action, 40)
        pegs = []
        for t in tokens:
            if t in ("a", "b", "c"):
                pegs.append("abc".index(t))
            elif len(t) == 2 and t[0] in "abc" and t[1] in "abc":
                pegs.extend(["abc".index(t[0]), "abc".index(t[1])])
        if len(pegs) != 2:
            return None
        return pegs[0], pegs[1]

    def step(self, action):
        move = self.parse(action)
        if move is None:
            obs = f"Invalid move {safe_echo(action)!r}: reply 'move X Y' with pegs X, Y in A, B, C.\n{self.render()}"
            return obs, 0.0, False, False, {"format_error": "expected 'move X Y' with two pegs A-C",
                                            "moves": self.moves}
        src, dst = move
        top_src = self.stack(src)
        top_dst = self.stack(dst)
        if src == dst or not top_src or (top_dst and top_dst[-1] < top_src[-1]):
            why = "the pegs are the same" if src == dst else (
                f"peg {PEGS[src]} is empty" if not top_src else
                f"disk {top_src[-1]} cannot go on the smaller disk {top_dst[-1]}")
            obs = f"Illegal move: {why}.\n{self.render()}"
            return obs, 0.0, False, False, {"action_is_valid": False, "moves": self.moves}
        disk = top_src[-1]
        self.pos[disk] = dst
        self.moves = self.moves + 1
        if len(self.stack(TARGET)) == self.n:
            self.done = True
            obs = f"Moved disk {disk} to {PEGS[dst]}. All disks are on C in {self.moves} moves!"
            return obs, 1.0, True, False, {"success": True, "moves": self.moves}
        if self.moves >= self.budget:
            self.done = True
            obs = f"Moved disk {disk} to {PEGS[dst]}. The move budget is spent.\n{self.render()}"
            return obs, 0.0, True, False, {"success": False, "moves": self.moves}
        obs = f"Moved disk {disk} to {PEGS[dst]} ({self.budget - self.moves} moves left).\n{self.render()}"
        return obs, 0.0, False, False, {"success": False, "moves": self.moves}

    def privileged_hint(self):
        n = self.n
        while n > 0 and self.pos[n] == TARGET:
            n = n - 1
        if n == 0:
            return "Everything is in place."
        other = PEGS[3 - self.pos[n] - TARGET]
        return (
            f"The largest disk not yet on C is disk {n}; first gather every smaller disk on peg {other}, then "
            f"disk {n} can go to C. The shortest solution from here is {moves_needed(self.pos, self.n, TARGET)} "
            f"moves."
        )

    def reference_action(self):
        move = first_move(self.pos, self.n, TARGET)
        if move is None:
            return "move A C"
        return f"move {PEGS[move[0]]} {PEGS[move[1]]}"
