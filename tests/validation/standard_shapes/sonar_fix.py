# shape: guessing with feedback: a hidden lattice point, each guess told its squared distance, limited guesses
"""Locate a buoy on a harbour grid from squared-distance pings (trilateration by guessing with feedback)."""

import re

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo

ENV_SPEC = {
    "name": "SquaredDistancePing",
    "domain": "math",
    "description": (
        "A buoy sits at a hidden lattice point (x, y) with 1 <= x, y <= G on a harbour chart. Each guess \\boxed{(a, "
        "b)} is answered with the exact squared distance (x-a)^2 + (y-b)^2 from your guess to the buoy; a reply of "
        "0 means you found it. Guesses are limited, so use the distances algebraically rather than searching."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "grid": {"min": 20, "max": 200, "default": 60, "description": "largest coordinate G"},
        "guesses": {"min": 3, "max": 6, "default": 4, "description": "guesses allowed (pings included)"},
    },
    "grounding": (
        "Trilateration (as in GPS and sonar ranging): each range measurement puts the target on a circle around "
        "the station; subtracting two circle equations gives a straight line, and a third measurement or a sign "
        "constraint fixes the point."
    ),
    "tags": ["geometry", "algebra", "guessing", "feedback", "multi-turn"],
}

PAIR = re.compile(r"^\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?$")


class SquaredDistancePing:
    def __init__(self, grid=60, guesses=4):
        self.grid = grid
        self.allowed = guesses
        self.target = (1, 1)
        self.history = []
        self.done = False

    def reset(self, rng, options):
        self.target = (rng.randint(1, self.grid), rng.randint(1, self.grid))
        self.history = []
        self.done = False
        obs = (
            f"A buoy is hidden at a lattice point (x, y) with 1 <= x <= {self.grid} and 1 <= y <= {self.grid}. "
            f"Guess a point as \\boxed{{(a, b)}} (integers; points off the chart are allowed as pings). Each guess is "
            f"answered with the squared distance to the buoy; 0 means found. You have {self.allowed} guesses."
        )
        return obs, {"guesses_left": self.allowed}

    def log(self):
        if not self.history:
            return "No pings yet."
        return "Pings so far: " + "; ".join(f"({a}, {b}) -> {d}" for (a, b), d in self.history) + \
            f". Guesses left: {self.allowed - len(self.history)}."

    def step(self, action):
        if self.done:
            return "The search is over.", 0.0, True, False, {"success": False}
        given = extract_answer(action)
        match = PAIR.match(given.strip()) if given is not None else None
        if match is None or max(len(match.group(1)), len(match.group(2))) > 7:
            return (f"Cannot read {safe_echo(action)!r}: reply with a point as \\boxed{{(a, b)}}, two integers.\n"
                    f"{self.log()}", 0.0, False, False, {"format_error": "expected \\boxed{(a, b)} with integers"})
        a, b = int(match.group(1)), int(match.group(2))
        d = (self.target[0] - a) ** 2 + (self.target[1] - b) ** 2
        self.history.append(((a, b), d))
        if d == 0:
            self.done = True
            return f"({a}, {b}) -> 0. Found the buoy!", 1.0, True, False, {"success": True}
        if len(self.history) >= self.allowed:
            self.done = True
            return (f"({a}, {b}) -> {d}. Out of guesses; the buoy was at ({self.target[0]}, {self.target[1]}).",
                    0.0, True, False, {"success": False})
        return f"({a}, {b}) -> squared distance {d}.\n{self.log()}", 0.0, False, False, \
            {"success": False, "guesses_left": self.allowed - len(self.history)}

    def privileged_hint(self):
        hint = (
            "Write each ping as (x-a)^2 + (y-b)^2 = d. Subtracting two such equations cancels x^2 and y^2 and leaves "
            "a linear equation; two pings at the same height (same b) give x directly, after which the first "
            "equation leaves (y-b)^2 and the chart limits pick the sign."
        )
        answer = f"({self.target[0]}, {self.target[1]})"
        if mentions_answer(hint, answer):
            hint = "Subtract two ping equations to eliminate the squares, then use one ping to fix the other coordinate."
        return hint

    def reference_action(self):
        if self.done:
            return "\\boxed{(0, 0)}"
        pings = dict(self.history)
        if (0, 0) not in pings:
            return "\\boxed{(0, 0)}"
        if (self.grid, 0) not in pings:
            return f"\\boxed{{({self.grid}, 0)}}"
        d0, d1, g = pings[(0, 0)], pings[(self.grid, 0)], self.grid
        x = (d0 - d1 + g * g) // (2 * g)
        rest = d0 - x * x
        y = 0
        while (y + 1) * (y + 1) <= rest:
            y = y + 1
        return f"\\boxed{{({x}, {y})}}"
