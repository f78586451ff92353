# shape: two-player impartial game (silver dollar / staircase Nim) vs perfect bot, either seat.
"""The silver dollar game (coins sliding left along a strip, no jumping) against a perfect bot."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "SilverDollarBot",
    "domain": "games",
    "description": (
        "The silver dollar game against a perfect bot. Coins (o) sit on a strip of squares numbered 1..L from "
        "the left. A move slides one coin to the LEFT by one or more squares; it may not land on or jump over "
        "another coin, nor leave the strip. Players alternate; whoever makes the last move wins (the player with "
        "no move loses). There is no passing. You may move first or second; the start always gives you a forced "
        "win. Reply 'move F T' (slide the coin on square F to square T), or 'resign' (a loss). Three invalid "
        "replies in a row forfeit. Win +1, loss -1."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 60,
    "players": 1,
    "difficulty": {
        "coins": {"min": 3, "max": 6, "default": 4, "description": "number of coins on the strip"},
    },
    "grounding": "The silver dollar game (N. G. de Bruijn; Conway's Winning Ways): a staircase-Nim disguise.",
    "tags": ["vs-bot", "impartial", "combinatorial-game", "nim-variant"],
}

INVALID_LIMIT = 3
MEMO = {}


def moves_of(coins):
    out = []
    for k in range(len(coins)):
        low = coins[k - 1] + 1 if k else 1
        for t in range(low, coins[k]):
            out.append((coins[k], t))
    return out


def slide(coins, f, t):
    return tuple(sorted(t if c == f else c for c in coins))


def mover_wins(coins):
    if coins not in MEMO:
        MEMO[coins] = any(not mover_wins(slide(coins, f, t)) for f, t in moves_of(coins))
    return MEMO[coins]


class SilverDollarBot:
    def __init__(self, coins=4):
        self.n = coins
        self.length = 2 * coins + 7
        self.coins = tuple(range(1, coins + 1))
        self.order = 0
        self.invalid = 0
        self.done = False

    def reset(self, rng, options):
        self.invalid = 0
        self.done = False
        self.order = rng.randrange(1000)
        bot_first = rng.random() < 0.5
        for _ in range(500):
            coins = tuple(sorted(rng.sample(list(range(1, self.length + 1)), self.n)))
            if len(moves_of(coins)) >= 3 and mover_wins(coins) != bot_first:
                break
        self.coins = coins
        note = "You move first."
        if bot_first:
            f, t = self.bot_move()
            self.coins = slide(self.coins, f, t)
            note = f"The bot moved first: {f} -> {t}."
        return self.observation(note), {"success": False, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [f"move {f} {t}" for f, t in moves_of(self.coins)]

    def render(self):
        nums = " ".join(f"{i:>2}" for i in range(1, self.length + 1))
        cells = " ".join(f"{'o' if i in self.coins else '.':>2}" for i in range(1, self.length + 1))
        return f"square: {nums}\ncoin:   {cells}"

    def observation(self, note):
        return (f"{note}\n{self.render()}\nCoins on squares {', '.join(str(c) for c in self.coins)}. "
                f"Reply 'move F T' (T left of F, nothing in between) or 'resign'.")

    def bot_move(self):
        options_ = moves_of(self.coins)
        k = self.order % len(options_)
        options_ = options_[k:] + options_[:k]
        for f, t in options_:
            if not mover_wins(slide(self.coins, f, t)):
                return f, t
        return max(options_, key=lambda m: (m[1] - m[0], m[0]))

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
        tokens = [t for t in tokens if t not in ("move", "slide", "from", "to", "coin", "square")]
        if len(tokens) != 2 or not all(t.lstrip("-").isdigit() for t in tokens):
            return self.reject(f"Could not read {safe_echo(action)!r}: reply 'move F T' with two square numbers.",
                               "expected 'move F T' (from square F to square T), or 'resign'")
        f, t = int(tokens[0]), int(tokens[1])
        if (f, t) not in moves_of(self.coins):
            if f not in self.coins:
                why = f"there is no coin on square {f}"
            elif t >= f:
                why = "coins only move to the left"
            else:
                why = "a coin may not leave the strip, land on another coin or jump over one"
            return self.reject(f"Illegal move {f} -> {t}: {why}.", None)
        self.invalid = 0
        self.coins = slide(self.coins, f, t)
        if not moves_of(self.coins):
            return self.finish(True, f"You moved {f} -> {t}. The bot has no move left. You win!", {})
        bf, bt = self.bot_move()
        self.coins = slide(self.coins, bf, bt)
        if not moves_of(self.coins):
            return self.finish(False, f"You moved {f} -> {t}; the bot moved {bf} -> {bt}. You have no move left. "
                                      f"The bot wins.", {})
        return self.observation(f"You moved {f} -> {t}; the bot moved {bf} -> {bt}."), 0.0, False, False, \
            {"success": False, "legal_moves": self.legal_moves(), "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        return ("Pair the coins from the right (rightmost with second-rightmost, and so on; an odd leftmost coin "
                "pairs with the left edge). The empty squares inside each pair act like a Nim heap, and the gaps "
                "between pairs do not matter: shrinking a pair's gap removes from that heap, while moving the "
                "left coin of a pair only widens the next gap. Leave the bot a position where these heaps have "
                "nim-sum zero.")

    def reference_action(self):
        if self.done or not moves_of(self.coins):
            return "resign"
        for f, t in moves_of(self.coins):
            if not mover_wins(slide(self.coins, f, t)):
                return f"move {f} {t}"
        f, t = moves_of(self.coins)[0]
        return f"move {f} {t}"
