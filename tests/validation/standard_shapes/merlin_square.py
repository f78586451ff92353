# shape: one-player Lights Out variant (Merlin's Magic Square, GF(2) toggles), scramble-depth knob.
"""Merlin's Magic Square: a Lights Out variant where each button flips a different pattern."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "MerlinMagicSquare",
    "domain": "games",
    "description": (
        "Merlin's Magic Square, a 3x3 Lights Out variant. Buttons are numbered 1-9 row by row (1 2 3 / 4 5 6 / "
        "7 8 9). Pressing a corner flips the 2x2 block that holds it (e.g. 1 flips 1, 2, 4, 5); pressing an edge "
        "flips its whole side of the square (e.g. 2 flips 1, 2, 3; 4 flips 1, 4, 7); pressing the centre flips "
        "the plus shape 2, 4, 5, 6, 8. Goal: light all nine cells. Reply 'press N'. Reward 1 for lighting the "
        "whole square within the turn limit, else 0."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "scramble": {"min": 2, "max": 7, "default": 4,
                     "description": "number of different buttons pressed to scramble the solved square"},
    },
    "grounding": "Merlin's Magic Square (Parker Brothers' Merlin, 1978): corner, edge and centre buttons flip "
                 "different patterns; every position is solvable.",
    "tags": ["puzzle", "single-player", "lights-out", "gf2"],
}

FLIPS = {
    0: (0, 1, 3, 4), 2: (1, 2, 4, 5), 6: (3, 4, 6, 7), 8: (4, 5, 7, 8),
    1: (0, 1, 2), 3: (0, 3, 6), 5: (2, 5, 8), 7: (6, 7, 8),
    4: (1, 3, 4, 5, 7),
}


def press(lights, b):
    out = list(lights)
    for i in FLIPS[b]:
        out[i] = 1 - out[i]
    return tuple(out)


def solve_set(lights):
    """The unique set of buttons (each pressed once) that lights every cell."""
    for mask in range(512):
        cur = lights
        for b in range(9):
            if mask >> b & 1:
                cur = press(cur, b)
        if all(cur):
            return [b for b in range(9) if mask >> b & 1]
    return []


class MerlinMagicSquare:
    def __init__(self, scramble=4):
        self.scramble = scramble
        self.lights = (1,) * 9
        self.presses = 0
        self.done = False

    def reset(self, rng, options):
        self.lights = (1,) * 9
        self.presses = 0
        self.done = False
        for b in rng.sample(list(range(9)), self.scramble):
            self.lights = press(self.lights, b)
        return self.observation("A scrambled square."), {"success": False, "lit": sum(self.lights)}

    def render(self):
        rows = []
        for r in range(3):
            rows.append(" ".join("*" if self.lights[3 * r + c] else "." for c in range(3)))
        return "\n".join(rows)

    def observation(self, note):
        return (f"{note}\nLights (* on, . off), buttons 1-9 row by row:\n{self.render()}\n"
                f"Presses so far: {self.presses}. Reply 'press N' (N from 1 to 9).")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        tokens = move_tokens(action, 60)
        if tokens and tokens[0] in ("press", "button"):
            tokens = tokens[1:]
        if len(tokens) != 1 or not tokens[0].lstrip("-").isdigit():
            return (self.observation(f"Could not read {safe_echo(action)!r}: reply 'press N'."), 0.0, False, False,
                    {"success": False, "format_error": "expected 'press N' with N from 1 to 9",
                     "action_is_valid": False})
        n = int(tokens[0])
        if not 1 <= n <= 9:
            return (self.observation(f"There is no button {n}; buttons are 1-9."), 0.0, False, False,
                    {"success": False, "action_is_valid": False})
        self.lights = press(self.lights, n - 1)
        self.presses = self.presses + 1
        info = {"success": False, "lit": sum(self.lights), "action_is_valid": True}
        if all(self.lights):
            self.done = True
            info["success"] = True
            return f"You pressed {n}. All nine lights are on: solved in {self.presses} presses!\n{self.render()}", \
                1.0, True, False, info
        return self.observation(f"You pressed {n}."), 0.0, False, False, info

    def privileged_hint(self):
        if self.done:
            return "The puzzle is over."
        need = solve_set(self.lights)
        corners = sum(1 for b in need if b in (0, 2, 6, 8))
        return (f"The square can be lit with {len(need)} more presses, no button twice ({corners} of them "
                f"corners). Pressing a button twice undoes it, so order does not matter: decide which buttons "
                f"to press. The centre cell is flipped by every corner and by the centre button only.")

    def reference_action(self):
        need = solve_set(self.lights) if not self.done else []
        return f"press {need[0] + 1}" if need else "press 5"
