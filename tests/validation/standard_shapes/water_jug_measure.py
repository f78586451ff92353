# shape: single-player water-jug measuring puzzle (fill / empty / pour) with the jug contents fed back every move and a move budget above the optimum.
"""Water jugs: measure an exact amount with fill, empty and pour moves within a move budget."""

from collections import deque
from math import gcd

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "WaterJugMeasure",
    "domain": "games",
    "description": (
        "Two or three unmarked jugs of known capacities start empty. Using 'fill X', 'empty X' and 'pour X Y' "
        "(pour until X is empty or Y is full), get exactly the target number of litres into any one jug within "
        "a move budget. Every move reports the new contents."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "jugs": {"min": 2, "max": 3, "default": 2, "description": "number of jugs"},
        "slack": {"min": 1, "max": 8, "default": 3, "description": "moves allowed beyond the shortest solution"},
    },
    "grounding": "The classic water-pouring puzzle (Die Hard 3, Bezout's identity): an amount is measurable only if "
                 "the gcd of the capacities divides it and it fits in a jug; repeatedly filling one jug and pouring it "
                 "into another steps through multiples of the capacities modulo each other.",
    "tags": ["puzzle", "planning", "number-theory", "single-player"],
}

NAMES = "ABC"


def successors(state, caps):
    out = []
    for i in range(len(caps)):
        if state[i] < caps[i]:
            out.append((f"fill {NAMES[i]}", state[:i] + (caps[i],) + state[i + 1:]))
        if state[i] > 0:
            out.append((f"empty {NAMES[i]}", state[:i] + (0,) + state[i + 1:]))
        for j in range(len(caps)):
            if i != j and state[i] > 0 and state[j] < caps[j]:
                amount = min(state[i], caps[j] - state[j])
                new = list(state)
                new[i], new[j] = new[i] - amount, new[j] + amount
                out.append((f"pour {NAMES[i]} {NAMES[j]}", tuple(new)))
    return out


def shortest(state, caps, target):
    """The shortest move list from state to any jug holding target ([] if already there, None if impossible)."""
    seen = {state: None}
    queue = deque([state])
    while queue:
        cur = queue.popleft()
        if target in cur:
            path = []
            while seen[cur] is not None:
                move, cur = seen[cur]
                path.append(move)
            return path[::-1]
        for move, nxt in successors(cur, caps):
            if nxt not in seen:
                seen[nxt] = (move, cur)
                queue.append(nxt)
    return None


class WaterJugMeasure:
    def __init__(self, jugs=2, slack=3):
        self.n_jugs = jugs
        self.slack = slack
        self.caps = ()
        self.state = ()
        self.target = 1
        self.budget = 0
        self.moves = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        while True:
            caps = tuple(sorted(rng.sample(range(3, 16), self.n_jugs), reverse=True))
            target = rng.randint(1, caps[0] - 1)
            if target in caps or target % gcd(*caps):
                continue
            path = shortest(tuple(0 for _ in caps), caps, target)
            if path is not None and len(path) >= 4:
                break
        self.caps, self.target = caps, target
        self.state = tuple(0 for _ in caps)
        self.budget = len(path) + self.slack
        self.moves, self.turns, self.done = 0, 0, False
        jugs = ", ".join(f"{NAMES[i]} holds up to {c} L" for i, c in enumerate(caps))
        obs = (f"Jugs: {jugs}; all start empty and have no markings. Goal: exactly {target} L in any one jug within "
               f"{self.budget} moves. Moves: 'fill X' (fill X from the tap), 'empty X' (pour X away), 'pour X Y' (pour "
               f"X into Y until X is empty or Y is full).\n{self.status()}")
        return obs, {"moves_left": self.budget}

    def status(self):
        contents = ", ".join(f"{NAMES[i]}={v}/{c}" for i, (v, c) in enumerate(zip(self.state, self.caps)))
        return f"Contents: {contents}. Moves left: {self.budget - self.moves}."

    def parse(self, action):
        tokens = [t for t in move_tokens(action if isinstance(action, str) else "", 60) if t not in ("into", "to", "jug")]
        letters = NAMES[: len(self.caps)].lower()
        if len(tokens) == 2 and tokens[0] in ("fill", "empty") and len(tokens[1]) == 1 and tokens[1] in letters:
            return f"{tokens[0]} {tokens[1].upper()}"
        if len(tokens) == 3 and tokens[0] == "pour" and all(len(t) == 1 and t in letters for t in tokens[1:]):
            return f"pour {tokens[1].upper()} {tokens[2].upper()}"
        return None

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        self.turns = self.turns + 1
        move = self.parse(action)
        out_of_turns = self.turns >= ENV_SPEC["max_turns"]
        if move is None:
            obs = f"Unreadable move {safe_echo(action)!r}: use 'fill A', 'empty B' or 'pour A B'.\n{self.status()}"
            self.done = out_of_turns
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": "expected fill/empty/pour move"}
        options = dict(successors(self.state, self.caps))
        if move not in options:
            obs = f"'{move}' changes nothing here (the jug is already full/empty, or the same jug twice).\n{self.status()}"
            self.done = out_of_turns
            return obs, 0.0, out_of_turns, False, {"success": False, "action_is_valid": False}
        self.state = options[move]
        self.moves = self.moves + 1
        if self.target in self.state:
            self.done = True
            return f"{move}: done, one jug holds exactly {self.target} L.\n{self.status()}", 1.0, True, False, \
                {"success": True}
        if self.moves >= self.budget or out_of_turns:
            self.done = True
            return f"{move}. Out of moves.\n{self.status()}", 0.0, True, False, {"success": False}
        return f"{move}.\n{self.status()}", 0.0, False, False, {"success": False, "moves_left": self.budget - self.moves}

    def privileged_hint(self):
        path = shortest(self.state, self.caps, self.target)
        if path is None or self.done:
            return "Every reachable amount is a combination of the capacities; the gcd decides what is possible."
        return (f"From here the goal is {len(path)} moves away at best. Keep topping up one jug from the tap and "
                f"tipping it into another; whenever the receiving jug is full, tip it out, and watch the remainder "
                f"left behind.")

    def reference_action(self):
        path = shortest(self.state, self.caps, self.target)
        return path[0] if path else "fill A"
