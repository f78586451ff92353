# shape: two-player impartial game against a scripted opponent (Grundy's game: split a heap into two unequal heaps)
"""Grundy's game against a scripted opponent: split one heap into two unequal non-empty heaps; no move loses."""

from functools import cache

from spade_domains.games.verify import move_integers, safe_echo

ENV_SPEC = {
    "name": "GrundySplitDuel",
    "domain": "games",
    "description": (
        "Grundy's game against a scripted opponent. Heaps of counters lie on the table; a move splits one heap "
        "into two non-empty heaps of different sizes. Heaps of 1 or 2 can never be split. The player who cannot "
        "move loses. You move first from a position you can win."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "heaps": {"min": 1, "max": 4, "default": 3, "description": "number of heaps at the start"},
        "max_heap": {"min": 8, "max": 22, "default": 14, "description": "largest possible starting heap"},
    },
    "grounding": "Grundy's game (Berlekamp, Conway and Guy): Sprague-Grundy values; a position is lost for the "
                 "player to move exactly when the XOR of the heaps' Grundy values is zero.",
    "tags": ["impartial", "combinatorial-game", "scripted-opponent", "sprague-grundy"],
}

INVALID_LIMIT = 3


@cache
def grundy(n):
    reachable = set()
    for small in range(1, (n + 1) // 2):
        reachable.add(grundy(small) ^ grundy(n - small))
    value = 0
    while value in reachable:
        value = value + 1
    return value


def nim_sum(heaps):
    total = 0
    for h in heaps:
        total = total ^ grundy(h)
    return total


def splits(heaps):
    """Every legal move as (heap index, smaller part)."""
    return [(i, small) for i, h in enumerate(heaps) for small in range(1, (h + 1) // 2)]


def apply_split(heaps, index, small):
    rest = heaps[:index] + heaps[index + 1:]
    return sorted(rest + [small, heaps[index] - small], reverse=True)


class GrundySplitDuel:
    def __init__(self, heaps=3, max_heap=14):
        self.heap_count = heaps
        self.max_heap = max_heap
        self.heaps = []
        self.invalid = 0
        self.turns = 0
        self.done = False
        self.last_bot = ""
        self.bot_rng_values = []
        self.order_seed = []

    def reset(self, rng, options):
        while True:
            heaps = sorted([rng.randint(3, self.max_heap) for _ in range(self.heap_count)], reverse=True)
            if nim_sum(heaps) != 0 and len(splits(heaps)) >= 3:
                break
        self.heaps = heaps
        self.invalid = 0
        self.turns = 0
        self.done = False
        self.last_bot = ""
        self.bot_rng_values = [rng.random() for _ in range(64)]  # the bot's coin flips, fixed per seed
        self.order_seed = [rng.random() for _ in range(64)]
        return self.observation("New game. You move first."), self.info()

    def legal_moves(self):
        return [f"split {i + 1} {small}" for i, small in splits(self.heaps)]

    def info(self):
        return {"legal_moves": self.legal_moves(), "heaps": list(self.heaps)}

    def observation(self, note):
        rows = []
        for i, h in enumerate(self.heaps):
            options = [f"{s}+{h - s}" for s in range(1, (h + 1) // 2)]
            rows.append(f"  heap {i + 1}: {h}  ({', '.join(options) if options else 'cannot be split'})")
        return (
            f"{note}\nHeaps:\n" + "\n".join(rows) +
            "\nReply 'split H S': split heap H so that one part has S counters (S smaller than the other part). "
            "Whoever cannot move loses."
        )

    def bot_move(self):
        moves = splits(self.heaps)
        winning = [m for m in moves if nim_sum(apply_split(self.heaps, m[0], m[1])) == 0]
        pool = winning if winning else moves
        pick = self.bot_rng_values[self.turns % len(self.bot_rng_values)]
        return pool[int(pick * len(pool)) % len(pool)]

    def step(self, action):
        self.turns = self.turns + 1
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        numbers = move_integers(action, 60)
        problem = None
        format_error = None
        if len(numbers) != 2:
            problem = f"Could not read {safe_echo(action)!r}: reply 'split H S' with a heap number and a part size."
            format_error = "expected 'split H S' (two integers)"
        else:
            index, small = numbers[0] - 1, numbers[1]
            if not 0 <= index < len(self.heaps):
                problem = f"There is no heap {numbers[0]}; heaps are numbered 1 to {len(self.heaps)}."
            else:
                size = self.heaps[index]
                if small > size - small:
                    small = size - small  # 'split 1 5' of a 7-heap names the larger part: same split
                if small < 1 or small * 2 >= size:
                    problem = (f"Heap {index + 1} has {size} counters; the two parts must be non-empty and of "
                               f"different sizes.")
        if problem is not None:
            self.invalid = self.invalid + 1
            if self.invalid >= INVALID_LIMIT:
                self.done = True
                return (problem + f"\n{INVALID_LIMIT} invalid moves in a row: you forfeit.", 0.0, True, False,
                        {"success": False, "format_error": format_error, "action_is_valid": False, "winner": 1})
            info = self.info()
            info["action_is_valid"] = False
            info["format_error"] = format_error
            return self.observation(problem), 0.0, False, False, info
        self.invalid = 0
        size = self.heaps[index]
        self.heaps = apply_split(self.heaps, index, small)
        note = f"You split {size} into {small}+{size - small}."
        if not splits(self.heaps):
            self.done = True
            return note + " The opponent cannot move: you win!", 1.0, True, False, {"success": True, "winner": 0}
        b_index, b_small = self.bot_move()
        b_size = self.heaps[b_index]
        self.heaps = apply_split(self.heaps, b_index, b_small)
        note = note + f" The opponent split {b_size} into {b_small}+{b_size - b_small}."
        if not splits(self.heaps):
            self.done = True
            return note + " You cannot move: you lose.", 0.0, True, False, {"success": False, "winner": 1}
        if self.turns >= ENV_SPEC["max_turns"]:
            self.done = True
            return note + " Turn limit reached.", 0.0, False, True, {"success": False}
        return self.observation(note), 0.0, False, False, self.info()

    def privileged_hint(self):
        values = ", ".join(f"G({h})={grundy(h)}" for h in self.heaps)
        return (f"Grundy values of the heaps: {values}; their XOR is {nim_sum(self.heaps)}. Heaps of 1 and 2 are "
                f"worth 0. Choose a split whose two parts' Grundy values, XORed with the other heaps, give 0.")

    def reference_action(self):
        moves = splits(self.heaps)
        if not moves:
            return "split 1 1"
        winning = [m for m in moves if nim_sum(apply_split(self.heaps, m[0], m[1])) == 0]
        pool = winning if winning else moves
        pick = self.order_seed[self.turns % len(self.order_seed)]
        index, small = pool[int(pick * len(pool)) % len(pool)]
        return f"split {index + 1} {small}"
