# shape: a game where draws happen (tic-tac-toe-like on a new board: the ten points of a pentagram); a draw pays 0, a win 1
"""Pentagram tic-tac-toe: claim all four points of one of the star's five lines."""

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "PentagramFourLine",
    "domain": "games",
    "description": (
        "Tic-tac-toe on a pentagram (five-pointed star): ten points, five straight lines of four points each "
        "(every point lies on two lines). Seats X and O alternately claim a free point; claiming all four points "
        "of a line wins; a full board with no such line is a draw (0 for both, a win pays +1, a loss -1)."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 40,
    "players": 2,
    "difficulty": {
        "opening_moves": {"min": 0, "max": 3, "default": 1,
                          "description": "random moves made before the agents start"},
    },
    "grounding": "A pentagram has 5 tips and 5 inner crossing points; each of its 5 lines passes through 2 tips and "
                 "2 crossings. With perfect play this four-in-a-line game is a draw.",
    "tags": ["two-player", "zero-sum", "draw", "tic-tac-toe-variant", "self-play"],
}

# points 1-5 are the tips, 6-10 the inner crossings; crossing 6+k is where line k meets line k+1
LINES = [(k % 5, (k + 2) % 5, 5 + (k + 4) % 5, 5 + k) for k in range(5)]
LINE_MASKS = [sum(1 << p for p in line) for line in LINES]
FULL = (1 << 10) - 1
SYMBOLS = ("X", "O")
STRIKES_TO_FORFEIT = 3
VALUES = {}  # pure cache: game value for the side to move, keyed by (mover mask, other mask)


def has_line(mask):
    return any(mask & m == m for m in LINE_MASKS)


def value(mine, theirs):
    """+1 / 0 / -1 for the player to move, whose points are `mine`."""
    key = (mine, theirs)
    if key not in VALUES:
        free = FULL & ~(mine | theirs)
        if not free:
            VALUES[key] = 0
        else:
            best = -1
            for p in range(10):
                bit = 1 << p
                if free & bit:
                    if has_line(mine | bit):
                        best = 1
                        break
                    best = max(best, -value(theirs, mine | bit))
                    if best == 1:
                        break
            VALUES[key] = best
    return VALUES[key]


class PentagramFourLine:
    def __init__(self, opening_moves=1):
        self.opening_moves = opening_moves
        self.masks = [0, 0]
        self.seat = 0
        self.strikes = [0, 0]
        self.steps = 0
        self.closed = False
        self.taste = []

    def reset(self, rng, options):
        self.masks = [0, 0]
        self.seat = 0
        self.strikes = [0, 0]
        self.steps = 0
        self.closed = False
        for _ in range(self.opening_moves):
            free = self.free_points()
            self.masks[self.seat] |= 1 << rng.choice(free)
            self.seat = 1 - self.seat
        self.taste = [rng.random() for _ in range(10)]
        return self.describe("Game start."), {"player_id": self.seat, "legal_moves": self.legal_moves()}

    def free_points(self):
        taken = self.masks[0] | self.masks[1]
        return [p for p in range(10) if not taken & (1 << p)]

    def legal_moves(self):
        return [str(p + 1) for p in self.free_points()]

    def owner(self, p):
        for s in (0, 1):
            if self.masks[s] & (1 << p):
                return SYMBOLS[s]
        return "."

    def describe(self, note):
        tips = "  ".join(f"{p + 1}:{self.owner(p)}" for p in range(5))
        inner = "  ".join(f"{p + 1}:{self.owner(p)}" for p in range(5, 10))
        lines = "\n".join(f"  line {k + 1}: points " + ", ".join(str(p + 1) for p in LINES[k]) + "  ["
                          + " ".join(self.owner(p) for p in LINES[k]) + "]" for k in range(5))
        me = SYMBOLS[self.seat]
        return (
            f"{note}\nYou are player {self.seat} ({me}). Tips: {tips}\nInner crossings: {inner}\nLines:\n{lines}\n"
            f"Claim all four points of a line to win. Free points: {', '.join(self.legal_moves())}.\n"
            f"Reply with one free point number."
        )

    def conclude(self, mover, winner, text, extra=None):
        self.closed = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "rewards": rewards, "winner": winner, "success": winner == mover}
        info.update(extra or {})
        return text, rewards[mover], True, False, info

    def step(self, action):
        if self.closed:
            return "The game is over.", 0.0, True, False, {"player_id": self.seat, "success": False}
        self.steps += 1
        mover = self.seat
        numbers = move_integers(action, 40)
        complaint, format_error = None, None
        if len(numbers) != 1 or not 1 <= numbers[0] <= 10:
            complaint = f"Invalid move {safe_echo(action)!r}: reply with one point number from 1 to 10."
            format_error = "expected one point number 1-10"
        elif (self.masks[0] | self.masks[1]) & (1 << (numbers[0] - 1)):
            complaint = f"Point {numbers[0]} is already claimed."
        if complaint:
            self.strikes[mover] += 1
            extra = {"action_is_valid": False, "format_error": format_error}
            if self.strikes[mover] >= STRIKES_TO_FORFEIT:
                return self.conclude(mover, 1 - mover, complaint + f"\nPlayer {mover} made {STRIKES_TO_FORFEIT} "
                                     f"invalid moves in a row and forfeits.", extra)
            if self.steps >= ENV_SPEC["max_turns"]:
                return self.conclude(mover, None, complaint + "\nTurn limit: draw.", extra)
            extra.update({"player_id": mover, "legal_moves": self.legal_moves()})
            left = STRIKES_TO_FORFEIT - self.strikes[mover]
            return self.describe(f"{complaint} ({left} more in a row forfeit.)"), 0.0, False, False, extra
        self.strikes[mover] = 0
        self.masks[mover] |= 1 << (numbers[0] - 1)
        text = f"Player {mover} ({SYMBOLS[mover]}) claimed point {numbers[0]}."
        if has_line(self.masks[mover]):
            return self.conclude(mover, mover, text + f" That completes a line: player {mover} wins.")
        if not self.free_points():
            return self.conclude(mover, None, text + " The board is full with no line: a draw.")
        if self.steps >= ENV_SPEC["max_turns"]:
            return self.conclude(mover, None, text + " Turn limit: draw.")
        self.seat = 1 - mover
        return self.describe(text), 0.0, False, False, {"player_id": self.seat, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        me, them = self.masks[self.seat], self.masks[1 - self.seat]
        open_mine, open_theirs, dead = [], [], 0
        for k, m in enumerate(LINE_MASKS):
            if m & me and not m & them:
                open_mine.append(f"line {k + 1} ({bin(m & me).count('1')}/4)")
            elif m & them and not m & me:
                open_theirs.append(f"line {k + 1} ({bin(m & them).count('1')}/4)")
            elif m & me and m & them:
                dead += 1
        text = (f"Lines still open for you: {', '.join(open_mine) or 'none started'}; for your opponent: "
                f"{', '.join(open_theirs) or 'none started'}; {dead} line(s) are blocked for both. ")
        text += ("A line with 3 of 4 points is a threat that must be blocked at once; every point sits on two "
                 "lines, so one claim can block one line and extend another.")
        return text

    def reference_action(self):
        free = self.free_points()
        if self.closed or not free:
            return "1"
        me, them = self.masks[self.seat], self.masks[1 - self.seat]
        best, best_key = free[0], None
        for p in free:
            bit = 1 << p
            if has_line(me | bit):
                return str(p + 1)
            score = -value(them, me | bit)
            # among equal values, prefer leaving the opponent the most losing replies
            replies = [q for q in range(10) if (FULL & ~(me | them | bit)) & (1 << q)]
            traps = sum(1 for q in replies if value(me | bit, them | (1 << q)) == 1)
            key = (score, traps, self.taste[p])
            if best_key is None or key > best_key:
                best, best_key = p, key
        return str(best + 1)
