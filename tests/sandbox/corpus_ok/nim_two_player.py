"""Two-player Nim: player ids, functools.reduce, operator.xor, itertools, regex action parsing."""

import re
from functools import reduce
from itertools import accumulate
from operator import xor

ENV_SPEC = {
    "name": "Nim",
    "domain": "games",
    "description": "Take stones from a heap; whoever takes the last stone wins.",
    "reward_range": [-1, 1],
    "max_turns": 60,
    "players": 2,
    "difficulty": {"heaps": {"min": 2, "max": 5, "default": 3}},
}

ACTION = re.compile(r"^\s*take\s+(\d+)\s+from\s+(\d+)\s*$", re.IGNORECASE)


class Nim:
    def __init__(self, heaps=3):
        self.n = heaps
        self.heaps = []
        self.player = 0

    def reset(self, rng, options):
        self.heaps = [rng.randint(1, 7) for _ in range(self.n)]
        self.player = 0
        return self.render(), {"player_id": self.player, "totals": list(accumulate(self.heaps))}

    def render(self):
        return " ".join(f"h{i}={h}" for i, h in enumerate(self.heaps))

    def step(self, action):
        match = ACTION.match(action)
        if not match:
            return self.render(), 0, False, False, {"player_id": self.player, "format_error": "say 'take K from H'"}
        count, heap = int(match.group(1)), int(match.group(2))
        if not (0 <= heap < len(self.heaps)) or not (1 <= count <= self.heaps[heap]):
            return self.render(), 0, False, False, {"player_id": self.player, "action_is_valid": False}
        self.heaps[heap] -= count
        if not any(self.heaps):
            return self.render(), 1, True, False, {"success": True, "winner": self.player}
        self.player = 1 - self.player
        return self.render(), 0, False, False, {"player_id": self.player}

    def privileged_hint(self):
        return f"The nim-sum is {reduce(xor, self.heaps, 0)}."

    def reference_action(self):
        total = reduce(xor, self.heaps, 0)
        for i, h in enumerate(self.heaps):
            target = h ^ total
            if target < h:
                return f"take {h - target} from {i}"
        i = max(range(len(self.heaps)), key=lambda k: self.heaps[k])
        return f"take 1 from {i}"
