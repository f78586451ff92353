# shape: two-player classic (Moser's Fifteen game = magic-square tic-tac-toe) vs perfect bot; draws pay 0; ...
"""The Fifteen game (pick numbers 1-9, first to hold three that sum to 15) against a perfect bot."""

from itertools import combinations

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "FifteenPickBot",
    "domain": "games",
    "description": (
        "The Fifteen game against a perfect bot. The numbers 1 to 9 lie on the table. Players alternately take "
        "one number nobody has taken. The first player holding three different numbers that add up to exactly "
        "15 (any three of the numbers they hold) wins; if all nine are taken without that, it is a draw "
        "(reward 0). A few numbers were already taken when you sit down and you may move first or second; the "
        "start always gives you a forced win. Reply 'take N', or 'resign' (a loss). Three invalid replies in a "
        "row forfeit. Win +1, loss -1, draw 0."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "opening_picks": {"min": 2, "max": 4, "default": 2,
                          "description": "numbers already taken before you sit down (fewer means a longer game)"},
    },
    "grounding": "The Fifteen game (Leo Moser): picking numbers 1-9 to make 15 is tic-tac-toe on the magic square.",
    "tags": ["vs-bot", "two-player", "number-game"],
}

INVALID_LIMIT = 3
MEMO = {}


def has_fifteen(held):
    return any(sum(t) == 15 for t in combinations(sorted(held), 3))


def completes(held, n):
    return any(a + b + n == 15 for a, b in combinations(sorted(held), 2) if n not in (a, b))


def value(mover, other):
    """+1 if the side to move (holding `mover`) forces a win, 0 a draw, -1 a loss."""
    key = (tuple(sorted(mover)), tuple(sorted(other)))
    if key not in MEMO:
        free = [n for n in range(1, 10) if n not in mover and n not in other]
        if not free:
            MEMO[key] = 0
        else:
            best = -1
            for n in free:
                if completes(mover, n):
                    best = 1
                    break
                best = max(best, -value(other, mover | {n}))
                if best == 1:
                    break
            MEMO[key] = best
    return MEMO[key]


class FifteenPickBot:
    def __init__(self, opening_picks=2):
        self.picks = opening_picks
        self.mine = frozenset()
        self.bots = frozenset()
        self.order = list(range(1, 10))
        self.invalid = 0
        self.done = False

    def reset(self, rng, options):
        self.order = rng.sample(list(range(1, 10)), 9)
        self.invalid = 0
        self.done = False
        bot_first = False
        for _ in range(500):
            sides = [set(), set()]
            nums = rng.sample(list(range(1, 10)), self.picks)
            for k in range(self.picks):
                sides[k % 2].add(nums[k])
            mover, waiter = frozenset(sides[self.picks % 2]), frozenset(sides[1 - self.picks % 2])
            v = value(mover, waiter)
            if v == 1:
                self.mine, self.bots, bot_first = mover, waiter, False
                break
            if v == -1:
                self.mine, self.bots, bot_first = waiter, mover, True
                break
        note = "You move first from here."
        if bot_first:
            n = self.bot_move()
            self.bots = self.bots | {n}
            note = f"The bot moved first and took {n}."
        return self.observation(note), {"legal_moves": self.legal_moves(), "success": False}

    def free(self):
        return [n for n in range(1, 10) if n not in self.mine and n not in self.bots]

    def legal_moves(self):
        return [f"take {n}" for n in self.free()]

    def observation(self, note):
        def show(s):
            return ", ".join(str(n) for n in sorted(s)) or "nothing"
        return (f"{note}\nYou hold: {show(self.mine)}. The bot holds: {show(self.bots)}.\n"
                f"Still on the table: {show(self.free())}.\nReply 'take N' or 'resign'.")

    def bot_move(self):
        best, pick = None, None
        for n in self.order:
            if n in self.mine or n in self.bots:
                continue
            if completes(self.bots, n):
                return n
            score = (-value(self.mine, self.bots | {n}), completes(self.mine, n))
            if best is None or score > best:
                best, pick = score, n
        return pick

    def finish(self, outcome, text, extra):
        self.done = True
        info = {"success": outcome > 0, "winner": 0 if outcome > 0 else (1 if outcome < 0 else None),
                "legal_moves": []}
        info.update(extra)
        return text, float(outcome), True, False, info

    def reject(self, message, format_error):
        self.invalid = self.invalid + 1
        extra = {"action_is_valid": False}
        if format_error:
            extra["format_error"] = format_error
        if self.invalid >= INVALID_LIMIT:
            return self.finish(-1, f"{message}\n{INVALID_LIMIT} invalid replies in a row: you forfeit.", extra)
        extra.update({"legal_moves": self.legal_moves(), "success": False})
        return self.observation(f"{message} ({INVALID_LIMIT - self.invalid} more invalid replies forfeit.)"), \
            0.0, False, False, extra

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "legal_moves": []}
        tokens = move_tokens(action, 60)
        if tokens == ["resign"]:
            return self.finish(-1, "You resigned; the bot wins.", {})
        if tokens and tokens[0] in ("take", "pick"):
            tokens = tokens[1:]
        if len(tokens) != 1 or not tokens[0].lstrip("-").isdigit():
            return self.reject(f"Could not read {safe_echo(action)!r}: reply 'take N' (N from 1 to 9).",
                               "expected 'take N' with N from 1 to 9, or 'resign'")
        n = int(tokens[0])
        if not 1 <= n <= 9:
            return self.reject(f"{n} is not one of the numbers 1-9.", None)
        if n in self.mine or n in self.bots:
            return self.reject(f"{n} is already taken.", None)
        self.invalid = 0
        if completes(self.mine, n):
            self.mine = self.mine | {n}
            return self.finish(1, f"You took {n} and hold three numbers summing to 15. You win!", {})
        self.mine = self.mine | {n}
        if not self.free():
            return self.finish(0, f"You took {n}; all numbers are taken. Draw.", {})
        b = self.bot_move()
        won = completes(self.bots, b)
        self.bots = self.bots | {b}
        if won:
            return self.finish(-1, f"You took {n}; the bot took {b} and holds three numbers summing to 15. "
                                   f"The bot wins.", {})
        if not self.free():
            return self.finish(0, f"You took {n}; the bot took {b}; all numbers are taken. Draw.", {})
        return self.observation(f"You took {n}; the bot took {b}."), 0.0, False, False, \
            {"legal_moves": self.legal_moves(), "success": False, "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        mine = sum(1 for n in self.free() if completes(self.mine, n))
        theirs = sum(1 for n in self.free() if completes(self.bots, n))
        return (f"You have {mine} number(s) on the table that would finish a 15 for you; the bot has {theirs}. "
                f"Lay the numbers out as the magic square 2 7 6 / 9 5 1 / 4 3 8: every 15 is a line. Block a "
                f"bot threat first; otherwise take a number that leaves you two different ways to finish.")

    def reference_action(self):
        if self.done:
            return "take 1"
        for n in self.order:
            if n in self.free() and completes(self.mine, n):
                return f"take {n}"
        best, pick = None, None
        for n in self.order:
            if n in self.free():
                v = -value(self.bots, self.mine | {n})
                if best is None or v > best:
                    best, pick = v, n
        return f"take {pick}"
