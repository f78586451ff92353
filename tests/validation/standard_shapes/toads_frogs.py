# shape: two-player partizan Toads and Frogs on a strip, both seats (a move names a cell; resign, forfeit; no move loses)
"""Toads and Frogs (Winning Ways) on a one-row strip, both seats played by the same policy."""

from functools import cache

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "ToadsFrogsStrip",
    "domain": "games",
    "description": (
        "Two-player Toads and Frogs on a strip of numbered cells. Player 0 moves toads (T) rightward, player 1 "
        "moves frogs (F) leftward. A creature slides one cell forward into an empty cell, or jumps over exactly "
        "one enemy creature directly ahead into the empty cell just beyond it. Reply with the cell number of the "
        "creature to move ('7'), or 'resign'. A player with no legal move on their turn loses. Three invalid "
        "moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 60,
    "players": 2,
    "difficulty": {
        "strip": {"min": 8, "max": 12, "default": 10, "description": "cells on the strip"},
        "creatures": {"min": 2, "max": 4, "default": 3, "description": "toads and frogs per side"},
    },
    "grounding": (
        "Toads and Frogs, the partizan game from Berlekamp, Conway and Guy's Winning Ways: toads move right, "
        "frogs left, sliding into a blank or hopping one opposing creature; the normal play rule (last move wins)."
    ),
    "tags": ["two-player", "zero-sum", "partizan", "combinatorial-game", "resign"],
}

PIECES = ["T", "F"]
INVALID_LIMIT = 3


def moves_for(board, piece):
    out = []
    n = len(board)
    d = 1 if piece == "T" else -1
    enemy = "F" if piece == "T" else "T"
    for i in range(n):
        if board[i] != piece:
            continue
        j = i + d
        if 0 <= j < n and board[j] == ".":
            out.append((i, j))
        elif 0 <= j < n and board[j] == enemy and 0 <= j + d < n and board[j + d] == ".":
            out.append((i, j + d))
    return out


def play(board, move):
    b = list(board)
    b[move[1]] = b[move[0]]
    b[move[0]] = "."
    return "".join(b)


@cache
def mover_wins(board, piece):
    other = "F" if piece == "T" else "T"
    return any(not mover_wins(play(board, m), other) for m in moves_for(board, piece))


@cache
def length_left(board, piece):
    """Plies until the game ends under the reference's play (win fast, lose slow)."""
    other = "F" if piece == "T" else "T"
    moves = moves_for(board, piece)
    if not moves:
        return 0
    kids = [(not mover_wins(play(board, m), other), length_left(play(board, m), other)) for m in moves]
    if any(w for w, _ in kids):
        return 1 + min(d for w, d in kids if w)
    return 1 + max(d for _, d in kids)


class ToadsFrogsStrip:
    def __init__(self, strip=10, creatures=3):
        self.n = strip
        self.k = creatures
        self.board = "." * strip
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.tie = list(range(strip))

    def reset(self, rng, options):
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.tie = rng.sample(list(range(self.n)), self.n)
        while True:
            cells = ["T"] * self.k + ["F"] * self.k + ["."] * (self.n - 2 * self.k)
            rng.shuffle(cells)
            b = "".join(cells)
            if moves_for(b, "T") and moves_for(b, "F") and length_left(b, "T") >= 4:
                break
        self.board = b
        return self.observation("Game start."), {"player_id": 0, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [str(i + 1) for i, _ in moves_for(self.board, PIECES[self.player])]

    def render(self):
        nums = " ".join(f"{i + 1:>2}" for i in range(self.n))
        row = " ".join(f"{c:>2}" for c in self.board)
        return f"cell: {nums}\n      {row}"

    def observation(self, note):
        me = PIECES[self.player]
        way = "rightward (to higher numbers)" if me == "T" else "leftward (to lower numbers)"
        return (
            f"{note}\nYou are player {self.player}, moving the {'toads' if me == 'T' else 'frogs'} ({me}) {way}.\n"
            f"{self.render()}\nReply with the cell number of one of your creatures to move it, or 'resign'."
        )

    def finish(self, mover, winner, text):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner}
        return text + "\n" + self.render(), rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            obs, r, t, tr, info = self.finish(mover, 1 - mover, f"{message}\nPlayer {mover} made {INVALID_LIMIT} "
                                              "invalid moves in a row and forfeits.")
            info["format_error"] = format_error
            info["action_is_valid"] = False
            return obs, r, t, tr, info
        obs = self.observation(f"{message} ({INVALID_LIMIT - self.invalid[mover]} more invalid moves forfeit.)")
        return obs, 0.0, False, False, {"player_id": mover, "format_error": format_error, "action_is_valid": False,
                                        "legal_moves": self.legal_moves()}

    def step(self, action):
        mover = self.player
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": mover, "success": False}
        toks = [t for t in move_tokens(action, 40) if t not in ("cell", "move")]
        if toks == ["resign"]:
            return self.finish(mover, 1 - mover, f"Player {mover} resigns. Player {1 - mover} wins.")
        if len(toks) != 1 or not toks[0].isdigit() or not 1 <= int(toks[0]) <= self.n:
            return self.reject(mover, f"Cannot read {safe_echo(action)!r}: reply one cell number 1-{self.n} or "
                                      "'resign'.", f"expected a cell number 1-{self.n} or 'resign'")
        cell = int(toks[0]) - 1
        piece = PIECES[mover]
        options = [m for m in moves_for(self.board, piece) if m[0] == cell]
        if not options:
            why = "it is not your creature" if self.board[cell] != piece else "that creature cannot move"
            return self.reject(mover, f"Cell {cell + 1}: {why}.", None)
        self.invalid[mover] = 0
        self.board = play(self.board, options[0])
        other = 1 - mover
        text = f"Player {mover} moved {piece} from {cell + 1} to {options[0][1] + 1}."
        if not moves_for(self.board, PIECES[other]):
            return self.finish(mover, mover, f"{text} Player {other} has no move. Player {mover} wins.")
        self.player = other
        return self.observation(text), 0.0, False, False, {"player_id": other, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        me = PIECES[self.player]
        return (
            f"Count tempo: the game is won by whoever still has moves when the other runs out. Creatures of yours "
            f"jammed against enemies with no gap behind them are dead; a jump gains two cells of room at once but can "
            f"free the jumped creature. Keep some {me} moves in reserve rather than spending them early."
        )

    def reference_action(self):
        if self.done:
            return "resign"
        me, other = PIECES[self.player], PIECES[1 - self.player]
        best, pick = None, None
        for m in moves_for(self.board, me):
            nb = play(self.board, m)
            win = not mover_wins(nb, other)
            d = length_left(nb, other)
            score = (1, -d) if win else (0, d)
            score = score + (self.tie[m[0]],)
            if best is None or score > best:
                best, pick = score, m
        return str(pick[0] + 1) if pick else "resign"
