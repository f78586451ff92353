# shape: two-player coin-turning game (Turning Turtles = Nim) vs perfect bot, either seat.
"""Turning Turtles (Conway's coin-flipping game) against a perfect bot."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "TurningTurtlesBot",
    "domain": "games",
    "description": (
        "Turning Turtles against a perfect bot. A row of coins numbered 1..L from the left shows H (heads) or T "
        "(tails). A move turns one head-up coin I to tails and may also turn over one coin J to its left (J < I), "
        "whichever way up J is. Players alternate; whoever makes the last move wins (a player facing all tails "
        "loses). There is no passing. You may move first or second; the start always gives you a forced win. "
        "Reply 'flip I' or 'flip I J', or 'resign' (a loss). Three invalid replies in a row forfeit. Win +1, "
        "loss -1."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "coins": {"min": 6, "max": 12, "default": 9, "description": "number of coins in the row"},
    },
    "grounding": "Turning Turtles (Berlekamp, Conway and Guy, Winning Ways): a coin-turning game equal to Nim "
                 "with a heap of size I for each head on coin I.",
    "tags": ["vs-bot", "impartial", "coin-turning", "combinatorial-game"],
}

INVALID_LIMIT = 3
MEMO = {}


def moves_of(heads, n):
    out = []
    for i in range(1, n + 1):
        if heads >> (i - 1) & 1:
            out.append((i, 0))
            for j in range(1, i):
                out.append((i, j))
    return out


def turn(heads, i, j):
    heads = heads ^ (1 << (i - 1))
    if j:
        heads = heads ^ (1 << (j - 1))
    return heads


def mover_wins(heads, n):
    if heads not in MEMO:
        MEMO[heads] = any(not mover_wins(turn(heads, i, j), n) for i, j in moves_of(heads, n))
    return MEMO[heads]


class TurningTurtlesBot:
    def __init__(self, coins=9):
        self.n = coins
        self.heads = 0
        self.shift = 0
        self.invalid = 0
        self.done = False

    def reset(self, rng, options):
        self.invalid = 0
        self.done = False
        self.shift = rng.randrange(1000)
        bot_first = rng.random() < 0.5
        for _ in range(500):
            heads = 0
            for i in rng.sample(list(range(self.n)), rng.randint(3, max(3, self.n // 2))):
                heads = heads | (1 << i)
            if mover_wins(heads, self.n) != bot_first:
                break
        self.heads = heads
        note = "You move first."
        if bot_first:
            i, j = self.bot_move()
            self.heads = turn(self.heads, i, j)
            note = f"The bot moved first: {self.describe(i, j)}."
        return self.observation(note), {"success": False, "legal_moves": self.legal_moves()}

    def describe(self, i, j):
        return f"turned coin {i}" + (f" and coin {j}" if j else "")

    def legal_moves(self):
        return [f"flip {i} {j}" if j else f"flip {i}" for i, j in moves_of(self.heads, self.n)]

    def render(self):
        nums = " ".join(f"{i:>2}" for i in range(1, self.n + 1))
        cells = " ".join(f"{'H' if self.heads >> (i - 1) & 1 else 'T':>2}" for i in range(1, self.n + 1))
        return f"coin: {nums}\nface: {cells}"

    def observation(self, note):
        return f"{note}\n{self.render()}\nReply 'flip I' or 'flip I J' (I a head, J < I), or 'resign'."

    def bot_move(self):
        options_ = moves_of(self.heads, self.n)
        k = self.shift % len(options_)
        options_ = options_[k:] + options_[:k]
        for i, j in options_:
            if not mover_wins(turn(self.heads, i, j), self.n):
                return i, j
        return min(options_, key=lambda m: (m[0], -m[1]))

    def finish(self, won, text, extra):
        self.done = True
        info = {"success": won, "winner": 0 if won else 1, "legal_moves": []}
        info.update(extra)
        return f"{text}\n{self.render()}", (1.0 if won else -1.0), True, False, info

    def reject(self, message, format_error):
        self.invalid = self.invalid + 1
        extra = {"action_is_valid": False}
        if format_error:
            extra["format_error"] = format_error
        if self.invalid >= INVALID_LIMIT:
            return self.finish(False, f"{message}\n{INVALID_LIMIT} invalid replies in a row: you forfeit.", extra)
        extra.update({"success": False, "legal_moves": self.legal_moves()})
        return self.observation(f"{message} ({INVALID_LIMIT - self.invalid} more invalid replies forfeit.)"), \
            0.0, False, False, extra

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "legal_moves": []}
        tokens = move_tokens(action, 60)
        if tokens == ["resign"]:
            return self.finish(False, "You resigned; the bot wins.", {})
        tokens = [t for t in tokens if t not in ("flip", "turn", "coin", "coins", "and")]
        if len(tokens) not in (1, 2) or not all(t.lstrip("-").isdigit() for t in tokens):
            return self.reject(f"Could not read {safe_echo(action)!r}: reply 'flip I' or 'flip I J'.",
                               "expected 'flip I' or 'flip I J' with coin numbers, or 'resign'")
        i = int(tokens[0])
        j = int(tokens[1]) if len(tokens) == 2 else 0
        if (i, j) not in moves_of(self.heads, self.n):
            if not 1 <= i <= self.n or not self.heads >> (i - 1) & 1:
                why = f"coin {i} is not a head on the row"
            else:
                why = f"the second coin must be to the left of coin {i} (1 to {i - 1})"
            return self.reject(f"Illegal move: {why}.", None)
        self.invalid = 0
        self.heads = turn(self.heads, i, j)
        if not self.heads:
            return self.finish(True, f"You {self.describe(i, j)}. All coins show tails: the bot cannot move. "
                                     f"You win!", {})
        bi, bj = self.bot_move()
        self.heads = turn(self.heads, bi, bj)
        if not self.heads:
            return self.finish(False, f"You {self.describe(i, j)}; the bot {self.describe(bi, bj)}. All tails: "
                                      f"you cannot move. The bot wins.", {})
        return self.observation(f"You {self.describe(i, j)}; the bot {self.describe(bi, bj)}."), 0.0, False, \
            False, {"success": False, "legal_moves": self.legal_moves(), "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        heads = [i for i in range(1, self.n + 1) if self.heads >> (i - 1) & 1]
        return (f"Read each head on coin I as a Nim heap of size I (here {len(heads)} heaps). Turning coin I alone "
                f"removes that heap; also turning coin J < I replaces heap I by heap J (or removes a heap J that "
                f"was already there). Leave the bot heaps whose nim-sum (XOR) is zero.")

    def reference_action(self):
        if self.done or not self.heads:
            return "resign"
        for i, j in moves_of(self.heads, self.n):
            if not mover_wins(turn(self.heads, i, j), self.n):
                return f"flip {i} {j}" if j else f"flip {i}"
        i, j = moves_of(self.heads, self.n)[0]
        return f"flip {i} {j}" if j else f"flip {i}"
