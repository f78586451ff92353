# shape: single-player Battleship search: fire at a hidden fleet with hit/miss/sunk feedback each shot and a tight shot budget.
"""Solo Battleship: sink a hidden fleet on a small grid within a shot budget, with hit / miss / sunk feedback."""

import string

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "BattleshipSoloHunt",
    "domain": "games",
    "description": (
        "A fleet of straight ships (lengths listed) is hidden on a square grid, ships never touching, not even "
        "diagonally. Fire at one cell per turn (e.g. 'c4'); each shot reports miss, hit, or hit and sunk. Sink "
        "every ship before the shots run out."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 70,
    "players": 1,
    "difficulty": {
        "size": {"min": 6, "max": 8, "default": 6, "description": "grid side (bigger fleets on bigger grids)"},
        "spare_shots": {"min": 8, "max": 16, "default": 12, "description": "shots allowed beyond the fleet's cells"},
    },
    "grounding": "Battleship search strategy: hunt on a checkerboard parity (every ship of length >= 2 covers both "
                 "colours), then target the neighbours of a hit and extend along the ship's line; ships that may "
                 "not touch rule out every cell around a sunk ship.",
    "tags": ["puzzle", "search", "deduction", "single-player", "feedback"],
}

FLEETS = {6: [3, 2, 2], 7: [4, 3, 2], 8: [4, 3, 2, 2]}


class BattleshipSoloHunt:
    def __init__(self, size=6, spare_shots=12):
        self.n = max(6, min(8, size))
        self.spare = spare_shots
        self.ships = []
        self.hits = []
        self.misses = []
        self.order = []
        self.shots_left = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        n = self.n
        while True:
            ships, blocked = [], set()
            for length in FLEETS[n]:
                spots = []
                for r in range(n):
                    for c in range(n):
                        for dr, dc in ((0, 1), (1, 0)):
                            cells = [(r + dr * k, c + dc * k) for k in range(length)]
                            if all(y < n and x < n and (y, x) not in blocked for y, x in cells):
                                spots.append(cells)
                if not spots:
                    break
                cells = rng.choice(spots)
                ships.append(cells)
                blocked.update((y + a, x + b) for y, x in cells for a in (-1, 0, 1) for b in (-1, 0, 1))
            if len(ships) == len(FLEETS[n]):
                break
        self.ships = ships
        self.hits, self.misses = [], []
        self.order = rng.sample([(r, c) for r in range(n) for c in range(n)], n * n)
        self.shots_left = sum(FLEETS[n]) + self.spare
        self.turns, self.done = 0, False
        lengths = ", ".join(str(k) for k in FLEETS[n])
        obs = (f"Battleship on a {n}x{n} grid (columns a-{string.ascii_lowercase[n - 1]}, rows 1-{n}). Hidden ships "
               f"of lengths {lengths} lie horizontally or vertically and never touch each other, not even at a "
               f"corner. You have {self.shots_left} shots. Reply with one cell such as c4.\n{self.render()}")
        return obs, {"shots_left": self.shots_left}

    def render(self):
        head = "  " + " ".join(string.ascii_lowercase[: self.n])
        rows = [head]
        for r in range(self.n):
            marks = ["X" if (r, c) in self.hits else "o" if (r, c) in self.misses else "." for c in range(self.n)]
            rows.append(f"{r + 1} " + " ".join(marks))
        return "\n".join(rows) + f"\n(X hit, o miss, . unknown) Shots left: {self.shots_left}."

    def name(self, cell):
        return f"{string.ascii_lowercase[cell[1]]}{cell[0] + 1}"

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        self.turns = self.turns + 1
        out_of_turns = self.turns >= ENV_SPEC["max_turns"]
        move = clean_move(action if isinstance(action, str) else "", 20) or ""
        cell = None
        if len(move) in (2, 3) and move[0] in string.ascii_lowercase[: self.n] and move[1:].isdigit():
            cell = (int(move[1:]) - 1, string.ascii_lowercase.index(move[0]))
        if cell is None or not 0 <= cell[0] < self.n:
            self.done = out_of_turns
            obs = f"Invalid shot {safe_echo(action)!r}: reply with one cell such as c4.\n{self.render()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": "expected a cell like c4"}
        if cell in self.hits or cell in self.misses:
            self.done = out_of_turns
            obs = f"{self.name(cell)} was already fired at; choose a new cell.\n{self.render()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "action_is_valid": False}
        self.shots_left = self.shots_left - 1
        ship = next((s for s in self.ships if cell in s), None)
        if ship is None:
            self.misses.append(cell)
            note = f"{self.name(cell)}: miss."
        else:
            self.hits.append(cell)
            sunk = all(c in self.hits for c in ship)
            note = f"{self.name(cell)}: hit and sunk (length {len(ship)})!" if sunk else f"{self.name(cell)}: hit."
        if all(c in self.hits for s in self.ships for c in s):
            self.done = True
            return f"{note} The whole fleet is sunk. You win.\n{self.render()}", 1.0, True, False, {"success": True}
        if self.shots_left <= 0 or out_of_turns:
            self.done = True
            return f"{note} Out of shots.\n{self.render()}", 0.0, True, False, {"success": False}
        return f"{note}\n{self.render()}", 0.0, False, False, {"success": False, "shots_left": self.shots_left}

    def privileged_hint(self):
        afloat = [len(s) for s in self.ships if not all(c in self.hits for c in s)]
        open_hits = any(not all(c in self.hits for c in s) and any(c in self.hits for c in s) for s in self.ships)
        focus = ("A damaged ship is still afloat: probe the cells beside your hits and extend along their line."
                 if open_hits else "No damaged ship is afloat: hunt on one checkerboard colour, away from sunk ships.")
        return (f"Ships still afloat have lengths {', '.join(str(k) for k in sorted(afloat))}. {focus} Cells "
                f"touching a sunk ship, even diagonally, are always empty.")

    def reference_action(self):
        for cell in self.order:
            if cell not in self.hits and any(cell in s for s in self.ships):
                return self.name(cell)
        return "a1"
