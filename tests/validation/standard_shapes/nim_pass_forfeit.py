# shape: a classic game with a pass rule (one pass per side) and a forfeit after repeated illegal moves
"""Three-heap Nim against a bot that plays perfectly: take any number of stones from one heap, whoever takes the
last stone wins. Each side may pass once per game, which changes the theory (a pass flips who must move), so the
reference and the bot search the game with the passes left as part of the position. Three illegal replies in a
row forfeit."""

import re

ENV_SPEC = {
    "name": "NimPassForfeit",
    "domain": "games",
    "description": "Three-heap Nim (last stone wins) against a perfect bot; each side may pass once per game, and "
                   "three illegal replies in a row forfeit.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {"heap": {"min": 3, "max": 7, "default": 6, "description": "largest starting heap"}},
    "grounding": "Bouton's Nim (1901): without passes, the mover wins when the heaps' XOR is non-zero; a single "
                 "pass per side is a game of its own, solved by searching positions with the passes left.",
    "tags": ["game", "nim", "pass", "forfeit"],
}

TAKE = re.compile(r"take (\d{1,2}) from heap (\d)")


def moves(heaps, passes):
    out = [(h, k) for h in range(3) for k in range(1, heaps[h] + 1)]
    return out + [("pass", 0)] if passes[0] > 0 else out


def played(heaps, passes, move):
    """The position after ``move``, from the next mover's side: (heaps, (its passes, the other's passes))."""
    if move[0] == "pass":
        return heaps, (passes[1], passes[0] - 1)
    h, k = move
    after = list(heaps)
    after[h] = after[h] - k
    return tuple(after), (passes[1], passes[0])


def winning_move(heaps, passes, memo):
    """A move that wins for the side to move, or None (passing is never a move into an empty board)."""
    key = (heaps, passes)
    if key not in memo:
        memo[key] = None
        for move in moves(heaps, passes):
            after, left = played(heaps, passes, move)
            if sum(after) == 0 or winning_move(after, left, memo) is None:
                memo[key] = move
                break
    return memo[key]


class NimPassForfeit:
    def __init__(self, heap=6):
        self.heap = heap
        self.heaps = (1, 1, 1)
        self.passes = (1, 1)
        self.memo = {}
        self.bad = 0
        self.done = False

    def reset(self, rng, options):
        self.memo = {}
        self.heaps = (0, 0, 0)
        while sum(self.heaps) < 5 or winning_move(self.heaps, (1, 1), self.memo) is None:
            self.heaps = tuple(rng.randint(1, self.heap) for _ in range(3))
        self.passes = (1, 1)
        self.bad = 0
        self.done = False
        return self._text("The game starts; you move first."), {"legal_moves": self.legal()}

    def legal(self):
        return [self.name(m) for m in moves(self.heaps, self.passes)]

    def name(self, move):
        return "pass" if move[0] == "pass" else f"take {move[1]} from heap {move[0] + 1}"

    def _text(self, news):
        shown = ", ".join(f"heap {i + 1}: {n}" for i, n in enumerate(self.heaps))
        return (f"{news} {shown}. Reply 'take K from heap H' or 'pass' (you have {self.passes[0]} pass left, the "
                f"bot {self.passes[1]}). Whoever takes the last stone wins; three illegal replies in a row forfeit.")

    def _end(self, text, reward, won):
        self.done = True
        return text, reward, True, False, {"success": won}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        text = " ".join(action.strip().lower().rstrip(".").split())
        found = TAKE.fullmatch(text)
        move = ("pass", 0) if text == "pass" else (int(found.group(2)) - 1, int(found.group(1))) if found else None
        if move not in moves(self.heaps, self.passes):
            self.bad = self.bad + 1
            if self.bad >= 3:
                return self._end("Three illegal replies in a row: you forfeit.", -1.0, False)
            info = {"success": False, "format_error": "not a legal move", "action_is_valid": False,
                    "legal_moves": self.legal()}
            return self._text(f"'{text[:24]}' is not a legal move ({self.bad} of 3)."), 0.0, False, False, info
        self.bad = 0
        self.heaps, self.passes = played(self.heaps, self.passes, move)
        if sum(self.heaps) == 0:
            return self._end("You took the last stone and win.", 1.0, True)
        reply = winning_move(self.heaps, self.passes, self.memo)
        if reply is None:
            reply = (self.heaps.index(max(self.heaps)), 1)
        self.heaps, self.passes = played(self.heaps, self.passes, reply)
        if sum(self.heaps) == 0:
            return self._end(f"The bot played '{self.name(reply)}' and took the last stone. You lose.", -1.0, False)
        return self._text(f"You played '{self.name(move)}'; the bot played '{self.name(reply)}'."), 0.0, False, \
            False, {"success": False, "legal_moves": self.legal()}

    def privileged_hint(self):
        return ("Think of the unused passes as part of the position: leave the bot a position where every move, "
                "its pass included, gives you a winning reply.")

    def reference_action(self):
        move = winning_move(self.heaps, self.passes, self.memo)
        return self.name(move or (self.heaps.index(max(self.heaps)), 1))
