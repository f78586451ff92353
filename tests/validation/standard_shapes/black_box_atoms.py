# shape: hidden-information deduction (Black Box: rays fired from edge ports, then the atoms named; any placement no ray tells apart is accepted), two guesses
"""Black Box: locate hidden atoms in a 5x5 box by firing rays from its edges and reading where they come out."""

from itertools import combinations

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "BlackBoxRays",
    "domain": "games",
    "description": (
        "Hidden atoms sit in a 5x5 box (rows A-E top to bottom, columns 1-5). 'fire N3' sends a ray down "
        "column 3 from the north edge (S = up from the south, W = rightward along a row from the west, E = "
        "leftward from the east; W2 is row B). A ray is absorbed (HIT) if it runs straight into an atom, turns 90 "
        "degrees away from an atom diagonally ahead of it, turns back (REFLECTED) if atoms are diagonally ahead on "
        "both sides or if an atom touches its entry point diagonally, and otherwise leaves at some edge port. "
        "When sure, reply 'guess' with the atom cells (e.g. 'guess B2 D4'). Rays and guesses are limited; any "
        "placement that gives every possible ray the same result as the hidden one counts as correct."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "atoms": {"min": 1, "max": 3, "default": 2, "description": "hidden atoms to locate"},
        "rays": {"min": 8, "max": 14, "default": 10, "description": "rays you may fire"},
    },
    "grounding": (
        "Black Box (Eric Solomon, 1976): deduce atom positions from ray hits, reflections and detours; some "
        "placements cannot be told apart by any ray, which is why equivalent placements are accepted."
    ),
    "tags": ["deduction", "hidden-information", "grid", "single-player"],
}

SIZE = 5
ROWS = "abcde"
PORTS = [f"{side}{i}" for side in "nswe" for i in range(1, SIZE + 1)]
GUESSES = 2
SIGNATURES = {}  # pure cache: atom count -> {placement: tuple of every port's result}


def port_start(port):
    side, i = port[0], int(port[1:]) - 1
    if side == "n":
        return (-1, i), (1, 0)
    if side == "s":
        return (SIZE, i), (-1, 0)
    if side == "w":
        return (i, -1), (0, 1)
    return (i, SIZE), (0, -1)


def port_at(pos):
    r, c = pos
    if r < 0:
        return f"n{c + 1}"
    if r >= SIZE:
        return f"s{c + 1}"
    if c < 0:
        return f"w{r + 1}"
    return f"e{r + 1}"


def inside(r, c):
    return 0 <= r < SIZE and 0 <= c < SIZE


def trace(atoms, port):
    (r, c), (dr, dc) = port_start(port)
    first = True
    for _ in range(200):
        ar, ac = r + dr, c + dc
        if (ar, ac) in atoms:
            return "hit"
        if dr == 0:  # moving along a row: diagonal cells above and below the cell ahead
            left, right = (ar - 1, ac), (ar + 1, ac)
        else:  # moving along a column: diagonal cells right and left of the cell ahead
            left, right = (ar, ac + 1), (ar, ac - 1)
        hl, hr = left in atoms, right in atoms
        if (hl or hr) and first:
            return "reflected"
        if hl and hr:
            dr, dc = -dr, -dc
        elif hl or hr:
            if dr == 0:  # moving horizontally, atom above/below
                dr, dc = (1, 0) if hl else (-1, 0)
            else:
                dr, dc = (0, -1) if hl else (0, 1)
        else:
            r, c = ar, ac
            first = False
            if not inside(r, c):
                out = port_at((r, c))
                return "reflected" if out == port else out
    return "reflected"


def signatures(count):
    if count not in SIGNATURES:
        cells = [(r, c) for r in range(SIZE) for c in range(SIZE)]
        table = {}
        for combo in combinations(cells, count):
            atoms = frozenset(combo)
            table[combo] = tuple(trace(atoms, p) for p in PORTS)
        SIGNATURES[count] = table
    return SIGNATURES[count]


def cell_name(cell):
    return f"{ROWS[cell[0]].upper()}{cell[1] + 1}"


class BlackBoxRays:
    def __init__(self, atoms=2, rays=10):
        self.count = atoms
        self.ray_budget = rays
        self.atoms = ()
        self.fired = {}
        self.guesses = 0
        self.done = False
        self.tie = list(range(len(PORTS)))

    def candidates(self):
        table = signatures(self.count)
        idx = {p: PORTS.index(p) for p in self.fired}
        return [a for a, sig in table.items() if all(sig[idx[p]] == res for p, res in self.fired.items())]

    def plan(self):
        """The reference's next port, or None when every consistent placement is equivalent."""
        table = signatures(self.count)
        cands = self.candidates()
        if len({table[a] for a in cands}) <= 1:
            return None
        best, best_port = None, None
        for j in self.tie:
            port = PORTS[j]
            if port in self.fired:
                continue
            buckets = {}
            for a in cands:
                key = table[a][j]
                buckets[key] = buckets.get(key, 0) + 1
            score = max(buckets.values())
            if best is None or score < best:
                best, best_port = score, port
        return best_port

    def reset(self, rng, options):
        table = signatures(self.count)
        keys = sorted(table)
        self.guesses = 0
        self.done = False
        while True:
            self.atoms = rng.choice(keys)
            self.tie = rng.sample(list(range(len(PORTS))), len(PORTS))
            self.fired = {}
            used = 0
            port = self.plan()
            while port is not None and used <= self.ray_budget:
                self.fired[port] = table[self.atoms][PORTS.index(port)]
                used = used + 1
                port = self.plan()
            if used <= self.ray_budget and used >= 2:
                break
        self.fired = {}
        obs = (
            f"A 5x5 black box hides {self.count} atom(s). You may fire {self.ray_budget} rays ('fire N3', 'fire "
            f"W5', ...) and make {GUESSES} guesses ('guess B2 D4', exactly {self.count} cell(s)).\n{self.render()}"
        )
        return obs, {"rays_left": self.ray_budget}

    def render(self):
        if not self.fired:
            log = "no rays fired yet"
        else:
            log = "; ".join(f"{p.upper()}->{r.upper() if r in ('hit', 'reflected') else 'exits ' + r.upper()}"
                            for p, r in self.fired.items())
        return f"Rays: {log}. Rays left {self.ray_budget - len(self.fired)}, guesses left {GUESSES - self.guesses}."

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        toks = move_tokens(action, 80)
        form = "expected 'fire N3' (side N/S/W/E and 1-5) or 'guess B2 D4' (rows A-E, columns 1-5)"
        if len(toks) >= 2 and toks[0] == "fire":
            port = "".join(toks[1:])
            if port not in PORTS:
                return f"Unknown port {safe_echo(action)!r}.\n{self.render()}", 0.0, False, False, \
                    {"format_error": form}
            if port in self.fired:
                return f"{port.upper()} was already fired.\n{self.render()}", 0.0, False, False, \
                    {"action_is_valid": False}
            if len(self.fired) >= self.ray_budget:
                return f"No rays left: make a guess.\n{self.render()}", 0.0, False, False, {"action_is_valid": False}
            self.fired[port] = signatures(self.count)[self.atoms][PORTS.index(port)]
            return f"Fired {port.upper()}.\n{self.render()}", 0.0, False, False, {"success": False}
        if toks and toks[0] == "guess":
            rest = toks[1:]
            cells = []
            i = 0
            while i < len(rest):
                t = rest[i]
                if len(t) == 1 and t in ROWS and i + 1 < len(rest) and rest[i + 1].isdigit():
                    r, c = ROWS.index(t), int(rest[i + 1]) - 1
                    i = i + 2
                elif len(t) == 2 and t[0] in ROWS and t[1].isdigit():
                    r, c = ROWS.index(t[0]), int(t[1]) - 1
                    i = i + 1
                else:
                    return f"Cannot read cell in {safe_echo(action)!r}.\n{self.render()}", 0.0, False, False, \
                        {"format_error": form}
                if not inside(r, c):
                    return f"Cell out of the box in {safe_echo(action)!r}.\n{self.render()}", 0.0, False, False, \
                        {"format_error": form}
                cells.append((r, c))
            if len(set(cells)) != self.count:
                return (f"Name exactly {self.count} different cell(s).\n{self.render()}", 0.0, False, False,
                        {"format_error": form})
            self.guesses = self.guesses + 1
            table = signatures(self.count)
            combo = tuple(sorted(set(cells)))
            if table[combo] == table[self.atoms]:
                self.done = True
                return "Correct: that placement explains every ray.", 1.0, True, False, {"success": True}
            right = len(set(cells) & set(self.atoms))
            if self.guesses >= GUESSES:
                self.done = True
                shown = " ".join(cell_name(a) for a in self.atoms)
                return f"Wrong again. The atoms were at {shown}.", 0.0, True, False, {"success": False}
            return (f"Wrong: {right} of your {self.count} cells hold an atom.\n{self.render()}", 0.0, False, False,
                    {"success": False})
        return f"Cannot read {safe_echo(action)!r}.\n{self.render()}", 0.0, False, False, {"format_error": form}

    def privileged_hint(self):
        left = len(self.candidates())
        return (
            f"{left} placement(s) agree with the rays so far. A HIT fixes an atom somewhere on the straight line "
            "before any turn; a ray that exits straight across its row or column proves that row or column (and "
            "its diagonal neighbours' influence) is empty. Fire the ray whose possible results split the remaining "
            "placements most evenly."
        )

    def reference_action(self):
        if self.done:
            return "guess A1"
        port = self.plan()
        if port is None or len(self.fired) >= self.ray_budget:
            return "guess " + " ".join(cell_name(a) for a in self.atoms)
        return f"fire {port.upper()}"
