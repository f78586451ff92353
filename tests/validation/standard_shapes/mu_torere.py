# shape: two-player Maori blocking game, both seats (FROM TO notation, resign, draw at a ply limit, forfeit after three invalid moves); perfect play mostly draws
"""Mu torere, the Maori blocking game, for two seats played by the same policy."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "MuTorereBlock",
    "domain": "games",
    "description": (
        "Two-player mu torere: eight points (kewai) on a star numbered 1-8 around a centre (putahi, written 0 or "
        "c). Each seat has four stones. A move slides one stone to an empty neighbouring point on the ring, from "
        "the centre to an empty point, or from a point to the empty centre only if that stone sits next to an "
        "enemy stone on the ring. A seat with no legal move loses. Moves are 'FROM TO' (e.g. '3 0'). "
        "Reply 'resign' to concede. The game is a draw after the ply limit. Three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 80,
    "players": 2,
    "difficulty": {
        "opening_moves": {"min": 0, "max": 8, "default": 6,
                          "description": "random plies played before the agents start (less studied positions)"},
    },
    "grounding": (
        "Mu torere (Ngati Porou, New Zealand): an eight-pointed star with a centre; stones move to adjacent empty "
        "spots; a stone may enter the putahi only when next to an opposing stone; blocking the opponent wins."
    ),
    "tags": ["two-player", "zero-sum", "board", "blocking", "draw"],
}

STONES = ["B", "W"]
INVALID_LIMIT = 3
PLY_LIMIT = 40
TABLE = {}  # pure cache: retrograde values of every mu torere position (shared, same input same output)


def ring_neighbours(p):
    return [(p % 8) + 1, ((p - 2) % 8) + 1]


def legal(board, stone):
    other = "W" if stone == "B" else "B"
    moves = []
    for p in range(1, 9):
        if board[p] != stone:
            continue
        for q in ring_neighbours(p):
            if board[q] == ".":
                moves.append((p, q))
        if board[0] == "." and any(board[q] == other for q in ring_neighbours(p)):
            moves.append((p, 0))
    if board[0] == stone:
        for q in range(1, 9):
            if board[q] == ".":
                moves.append((0, q))
    return moves


def apply(board, move):
    b = list(board)
    b[move[1]] = b[move[0]]
    b[move[0]] = "."
    return "".join(b)


def build_table():
    """Retrograde analysis: TABLE[(board, stone)] = (result, distance) for the side to move;
    result 1 win, -1 loss, 0 draw."""
    if TABLE:
        return TABLE
    states = []
    cells = list(range(9))
    for empty in cells:
        rest = [c for c in cells if c != empty]
        for mask in range(256):
            if bin(mask).count("1") != 4:
                continue
            b = ["."] * 9
            for i in range(8):
                b[rest[i]] = "B" if mask >> i & 1 else "W"
            states.append("".join(b))
    value = {}
    for b in states:
        for s in STONES:
            if not legal(b, s):
                value[(b, s)] = (-1, 0)
    changed = True
    while changed:
        changed = False
        for b in states:
            for s in STONES:
                if (b, s) in value:
                    continue
                other = "W" if s == "B" else "B"
                kids = [value.get((apply(b, m), other)) for m in legal(b, s)]
                wins = [k[1] for k in kids if k is not None and k[0] == -1]
                if wins:
                    value[(b, s)] = (1, min(wins) + 1)
                    changed = True
                elif all(k is not None and k[0] == 1 for k in kids):
                    value[(b, s)] = (-1, max(k[1] for k in kids) + 1)
                    changed = True
    for b in states:
        for s in STONES:
            if (b, s) not in value:
                value[(b, s)] = (0, 0)
    TABLE.update(value)
    return TABLE


class MuTorereBlock:
    def __init__(self, opening_moves=6):
        self.opening_moves = opening_moves
        self.board = "." + "BBBBWWWW"
        self.player = 0
        self.invalid = [0, 0]
        self.plies = 0
        self.done = False
        self.tie = list(range(9))

    def reset(self, rng, options):
        build_table()
        self.board = "." + "BBBBWWWW"
        self.player = 0
        self.invalid = [0, 0]
        self.plies = 0
        self.done = False
        self.tie = rng.sample(list(range(9)), 9)
        made = 0
        while made < self.opening_moves:
            moves = legal(self.board, STONES[self.player])
            safe = [m for m in moves if legal(apply(self.board, m), STONES[1 - self.player])]
            if not safe:
                break
            self.board = apply(self.board, rng.choice(safe))
            self.player = 1 - self.player
            made = made + 1
        note = "Game start." if not made else f"Game start after {made} random plies."
        return self.observation(note), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [f"{p} {q}" for p, q in legal(self.board, STONES[self.player])]

    def render(self):
        b = self.board
        return (
            f"      8:{b[8]}  1:{b[1]}  2:{b[2]}\n"
            f"   7:{b[7]}    centre 0:{b[0]}    3:{b[3]}\n"
            f"      6:{b[6]}  5:{b[5]}  4:{b[4]}\n"
            "Ring order 1-2-3-4-5-6-7-8-1; every point touches the centre."
        )

    def observation(self, note):
        me = STONES[self.player]
        return (
            f"{note}\nYou are player {self.player} ({me}); opponent is player {1 - self.player} "
            f"({STONES[1 - self.player]}). Ply {self.plies}/{PLY_LIMIT} (draw at the limit).\n{self.render()}\n"
            "Reply 'FROM TO' with point numbers (0 = centre), or 'resign'. A stone may enter the centre only "
            "from a point next to an enemy stone on the ring."
        )

    def finish(self, mover, winner, text):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner}
        return f"{text}\n{self.render()}", rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            obs, r, t, tr, info = self.finish(mover, 1 - mover, f"{message}\nPlayer {mover} made {INVALID_LIMIT} "
                                              f"invalid moves in a row and forfeits.")
            info["format_error"] = format_error
            info["action_is_valid"] = False
            return obs, r, t, tr, info
        left = INVALID_LIMIT - self.invalid[mover]
        obs = self.observation(f"{message} ({left} more invalid moves forfeit.)")
        return obs, 0.0, False, False, {"player_id": mover, "format_error": format_error,
                                        "action_is_valid": False, "legal_moves": self.legal_moves()}

    def parse(self, action):
        toks = move_tokens(action, 60)
        if toks == ["resign"]:
            return "resign"
        nums = []
        for t in toks:
            if t in ("c", "centre", "center", "putahi"):
                nums.append(0)
            elif t.isdigit():
                nums.append(int(t))
            elif t not in ("from", "to", "move"):
                return None
        if len(nums) != 2 or not all(0 <= n <= 8 for n in nums):
            return None
        return (nums[0], nums[1])

    def step(self, action):
        mover = self.player
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": mover, "success": False}
        move = self.parse(action)
        if move is None:
            return self.reject(mover, f"Cannot read {safe_echo(action)!r}: reply 'FROM TO' (points 0-8) or "
                                      "'resign'.", "expected two point numbers 0-8, e.g. '3 0', or 'resign'")
        if move == "resign":
            return self.finish(mover, 1 - mover, f"Player {mover} resigns. Player {1 - mover} wins.")
        if move not in legal(self.board, STONES[mover]):
            why = "that is not your stone" if self.board[move[0]] != STONES[mover] else (
                "the target is not an empty neighbour, or the stone is not next to an enemy stone")
            return self.reject(mover, f"Illegal move {move[0]} {move[1]}: {why}.", None)
        self.invalid[mover] = 0
        self.board = apply(self.board, move)
        self.plies = self.plies + 1
        other = 1 - mover
        if not legal(self.board, STONES[other]):
            return self.finish(mover, mover, f"Player {mover} moved {move[0]} {move[1]}; player {other} is "
                                             f"blocked. Player {mover} wins.")
        if self.plies >= PLY_LIMIT:
            return self.finish(mover, None, f"Ply limit {PLY_LIMIT} reached: draw.")
        self.player = other
        obs = self.observation(f"Player {mover} moved {move[0]} {move[1]}.")
        return obs, 0.0, False, False, {"player_id": other, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        me, other = STONES[self.player], STONES[1 - self.player]
        return (
            f"You lose when every {me} stone is stuck. Keep the centre useful: a stone in the centre can always "
            f"come out, and {other} may only enter the centre from a point beside one of your stones. Before "
            f"moving, check whether your move leaves {other} with exactly one legal reply, and what that reply "
            "allows you next."
        )

    def reference_action(self):
        if self.done:
            return "resign"
        me, other = STONES[self.player], STONES[1 - self.player]
        best, best_move = None, None
        for m in legal(self.board, me):
            res, dist = TABLE.get((apply(self.board, m), other), (0, 0))
            if res == -1:
                score = (2, -dist)
            elif res == 0:
                score = (1, 0)
            else:
                score = (0, dist)
            score = score + (self.tie[m[0]], self.tie[m[1]])
            if best is None or score > best:
                best, best_move = score, m
        if best_move is None:
            return "resign"
        return f"{best_move[0]} {best_move[1]}"
