"""Nim against a scripted optimal opponent: the agent starts in a winning position and must keep it."""

from functools import reduce

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "NimVersusBot",
    "domain": "games",
    "description": (
        "Nim with several heaps against a perfect scripted opponent. On your turn take one or more objects from "
        "one heap. Normal play: whoever takes the last object wins; misere: whoever takes it loses. You start "
        "in a winning position, so one slip loses."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 60,
    "players": 1,
    "difficulty": {
        "heaps": {"min": 2, "max": 5, "default": 3, "description": "number of heaps (and their sizes)"},
        "misere": {"min": 0, "max": 1, "default": 0, "description": "1: misere rules (last object loses)"},
    },
    "grounding": (
        "Combinatorial game theory: Bouton's theorem (1901) - a Nim position is lost for the player to move "
        "exactly when the XOR of the heap sizes (the nim-sum) is zero; misere Nim plays the same until only "
        "heaps of size one would remain, then leaves an odd number of them."
    ),
    "tags": ["combinatorial-game", "nim", "opponent", "strategy"],
}


def nim_sum(heaps):
    return reduce(lambda a, b: a ^ b, heaps, 0)


def winning_move(heaps, misere):
    """(heap index, count) of a winning move, or None when the position is lost."""
    big = [i for i in range(len(heaps)) if heaps[i] > 1]
    if misere and len(big) <= 1:
        ones = sum(1 for h in heaps if h == 1)
        if not big:
            if ones % 2 == 0 and ones > 0:
                return heaps.index(1), 1
            return None
        i = big[0]
        # leave an odd number of single heaps in total
        keep = 0 if ones % 2 == 1 else 1
        return i, heaps[i] - keep
    total = nim_sum(heaps)
    if total == 0:
        return None
    for i in range(len(heaps)):
        target = heaps[i] ^ total
        if target < heaps[i]:
            return i, heaps[i] - target
    return None


class NimVersusBot:
    def __init__(self, heaps=3, misere=0):
        self.n_heaps = heaps
        self.misere = misere == 1
        self.heaps = []
        self.log = []
        self.done = False

    def reset(self, rng, options):
        top = 3 + 2 * self.n_heaps
        heaps = [rng.randint(1, top) for _ in range(self.n_heaps)]
        while winning_move(heaps, self.misere) is None or sum(heaps) < 2 * self.n_heaps:
            heaps = [rng.randint(1, top) for _ in range(self.n_heaps)]
        self.heaps = heaps
        self.log = []
        self.done = False
        rule = "misere: whoever takes the last object LOSES" if self.misere else "whoever takes the last object wins"
        obs = (
            f"Nim against a perfect opponent ({rule}). You move first.\n{self.render()}\n"
            f"Reply 'take N from heap H' (or 'H N'): remove N >= 1 objects from heap H."
        )
        return obs, {}

    def render(self):
        return "\n".join(f"Heap {i + 1}: {h} {'|' * h}" for i, h in enumerate(self.heaps))

    def parse(self, action):
        """(heap index, count) from 'take N from heap H', 'heap H take N' or 'H N'; None when unreadable."""
        tokens = move_tokens(action, 60)
        places = [k for k in range(len(tokens)) if tokens[k].isdigit() and len(tokens[k]) <= 4]
        if len(places) != 2:
            return None
        first, second = int(tokens[places[0]]), int(tokens[places[1]])
        for k in places:
            if k > 0 and tokens[k - 1] == "heap":
                heap = int(tokens[k])
                count = second if k == places[0] else first
                return heap - 1, count
        if "from" in tokens or "take" in tokens or "remove" in tokens:
            return second - 1, first
        return first - 1, second

    def finished(self):
        return sum(self.heaps) == 0

    def step(self, action):
        parsed = self.parse(action)
        if parsed is None:
            obs = f"Invalid move {safe_echo(action)!r}: reply 'take N from heap H'.\n{self.render()}"
            return obs, 0.0, False, False, {"format_error": "expected 'take N from heap H' or 'H N'"}
        heap, count = parsed
        if not 0 <= heap < len(self.heaps) or count < 1 or count > self.heaps[heap]:
            where = f"heap {heap + 1}" if 0 <= heap < len(self.heaps) else "that heap"
            obs = f"Illegal: you cannot take {count} from {where}.\n{self.render()}"
            return obs, 0.0, False, False, {"action_is_valid": False}
        self.heaps[heap] = self.heaps[heap] - count
        note = f"You took {count} from heap {heap + 1}."
        if self.finished():
            self.done = True
            won = not self.misere
            result = "You took the last object and win!" if won else "You took the last object and lose (misere)."
            return f"{note} {result}", 1.0 if won else 0.0, True, False, {"success": won}
        move = winning_move(self.heaps, self.misere)
        if move is None:
            i = max(range(len(self.heaps)), key=lambda k: self.heaps[k])
            move = (i, 1)
        i, n = move
        self.heaps[i] = self.heaps[i] - n
        note = f"{note} The opponent took {n} from heap {i + 1}."
        if self.finished():
            self.done = True
            won = self.misere
            result = "It took the last object and loses: you win!" if won else "It took the last object and wins."
            return f"{note} {result}", 1.0 if won else 0.0, True, False, {"success": won}
        return f"{note}\n{self.render()}\nYour move.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        if self.misere:
            return (
                "Misere Nim: keep the XOR of the heap sizes at zero after your move while two or more heaps are "
                "bigger than one; once only one big heap remains, leave an odd number of single-object heaps."
            )
        return "Normal Nim: after your move the XOR of all heap sizes (the nim-sum) should be zero."

    def reference_action(self):
        if self.done:
            return "take 1 from heap 1"
        move = winning_move(self.heaps, self.misere)
        if move is None:
            i = max(range(len(self.heaps)), key=lambda k: self.heaps[k])
            move = (i, 1)
        return f"take {move[1]} from heap {move[0] + 1}"
