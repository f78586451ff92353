# shape: two-player word game (Ghost over a fixed word list) vs perfect bot, seat and opening fragment by seed. ...
"""Ghost, the spelling game, over a fixed word list, against a perfect bot."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "GhostWordsBot",
    "domain": "games",
    "description": (
        "Ghost against a perfect bot, over the fixed word list shown. Players take turns adding one letter to the "
        "end of a shared fragment. The fragment must always be the start of some listed word (a letter that "
        "breaks this is refused). Whoever completes a listed word (all listed words have 4+ letters) loses, even "
        "if a longer listed word starts with it. You may move first or second from a seed-drawn opening "
        "fragment; the start always gives you a forced win. Reply with one letter, or 'resign' (a loss). Three "
        "invalid replies in a row forfeit. Win +1, loss -1."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "opening_letters": {"min": 1, "max": 2, "default": 1,
                            "description": "letters of the fragment fixed before play (fewer = deeper game)"},
    },
    "grounding": "Ghost: a parlour spelling game; the player who completes a word (or cannot continue one) loses.",
    "tags": ["vs-bot", "word-game", "two-player", "trie"],
}

WORDS = [
    "card", "care", "career", "careful", "cargo", "carol", "carpet", "carrot", "carry", "cart", "carton",
    "carve", "cast", "castle", "casual", "cash", "cashew", "pard", "pardon", "parent", "park", "parka",
    "parlor", "parrot", "parse", "part", "partial", "party", "pass", "passage", "past", "pasta", "paste",
    "pastry", "stab", "stable", "stack", "staff", "stage", "stain", "stair", "stake", "stamp", "star",
    "starch", "stare", "start", "state", "static", "stay", "tend", "tender", "tennis", "tense", "tension",
    "tent", "tenth", "term", "terminal", "terrace", "terror", "test", "text", "texture", "mark", "market",
    "marble", "march", "marsh", "marry", "mast", "master", "mask", "mass", "massive",
]
INVALID_LIMIT = 3
MEMO = {}


def continuations(frag):
    return sorted({w[len(frag)] for w in WORDS if w.startswith(frag) and len(w) > len(frag)})


def mover_wins(frag):
    """Whether the player about to add a letter to `frag` can force the other to complete a word."""
    if frag not in MEMO:
        result = False
        for ch in continuations(frag):
            nxt = frag + ch
            if nxt in WORDS:
                continue
            if not mover_wins(nxt):
                result = True
                break
        MEMO[frag] = result
    return MEMO[frag]


class GhostWordsBot:
    def __init__(self, opening_letters=1):
        self.opening = opening_letters
        self.frag = ""
        self.tie = list("abcdefghijklmnopqrstuvwxyz")
        self.invalid = 0
        self.done = False

    def reset(self, rng, options):
        self.tie = rng.sample(list("abcdefghijklmnopqrstuvwxyz"), 26)
        self.invalid = 0
        self.done = False
        bot_first = False
        starts = sorted({w[:k] for w in WORDS for k in range(self.opening, self.opening + 2)})
        options_ = []
        for frag in starts:
            if frag in WORDS:
                continue
            if not mover_wins(frag):
                if any(frag + ch not in WORDS for ch in continuations(frag)):
                    options_.append((frag, True))
            elif any(frag + ch in WORDS or mover_wins(frag + ch) for ch in continuations(frag)):
                options_.append((frag, False))
        frag, bot_first = rng.choice(options_)
        self.frag = frag
        note = f"The opening fragment is '{self.frag.upper()}'. You add the next letter."
        if bot_first:
            ch = self.bot_letter()
            self.frag = self.frag + ch
            note = (f"The opening fragment was '{frag.upper()}'. The bot moved first and added '{ch.upper()}'.")
        return self.observation(note), {"success": False, "legal_moves": continuations(self.frag)}

    def possible(self):
        return [w for w in WORDS if w.startswith(self.frag)]

    def observation(self, note):
        return (f"{note}\nFragment: '{self.frag.upper()}'.\nListed words still possible: "
                f"{', '.join(self.possible())}.\nFull word list ({len(WORDS)} words): {' '.join(WORDS)}.\n"
                f"Reply with one letter to add, or 'resign'. Completing a listed word loses.")

    def bot_letter(self):
        best, pick = None, None
        for ch in self.tie:
            if ch not in continuations(self.frag):
                continue
            nxt = self.frag + ch
            completes = nxt in WORDS
            score = (not completes and not mover_wins(nxt), not completes,
                     max(len(w) for w in WORDS if w.startswith(nxt)))
            if best is None or score > best:
                best, pick = score, ch
        return pick

    def finish(self, won, text, extra):
        self.done = True
        info = {"success": won, "winner": 0 if won else 1, "legal_moves": []}
        info.update(extra)
        return text, (1.0 if won else -1.0), True, False, info

    def reject(self, message, format_error):
        self.invalid = self.invalid + 1
        extra = {"action_is_valid": False}
        if format_error:
            extra["format_error"] = format_error
        if self.invalid >= INVALID_LIMIT:
            return self.finish(False, f"{message}\n{INVALID_LIMIT} invalid replies in a row: you forfeit.", extra)
        extra.update({"success": False, "legal_moves": continuations(self.frag)})
        return self.observation(f"{message} ({INVALID_LIMIT - self.invalid} more invalid replies forfeit.)"), \
            0.0, False, False, extra

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "legal_moves": []}
        tokens = move_tokens(action, 40)
        if tokens == ["resign"]:
            return self.finish(False, "You resigned; the bot wins.", {})
        if tokens and tokens[0] in ("add", "letter", "play"):
            tokens = tokens[1:]
        if len(tokens) != 1 or len(tokens[0]) != 1 or not tokens[0].isalpha():
            return self.reject(f"Could not read {safe_echo(action)!r}: reply with a single letter a-z.",
                               "expected one letter a-z, or 'resign'")
        ch = tokens[0]
        if ch not in continuations(self.frag):
            return self.reject(f"'{(self.frag + ch).upper()}' does not start any listed word.", None)
        self.invalid = 0
        self.frag = self.frag + ch
        if self.frag in WORDS:
            return self.finish(False, f"You added '{ch.upper()}' and completed '{self.frag.upper()}'. You lose.", {})
        b = self.bot_letter()
        self.frag = self.frag + b
        if self.frag in WORDS:
            return self.finish(True, f"You added '{ch.upper()}'; the bot added '{b.upper()}' and completed "
                                     f"'{self.frag.upper()}'. You win!", {})
        return self.observation(f"You added '{ch.upper()}'; the bot added '{b.upper()}'."), 0.0, False, False, \
            {"success": False, "legal_moves": continuations(self.frag), "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        shortest = {}
        for w in self.possible():
            if not any(w.startswith(v) and v != w for v in WORDS):
                shortest[w] = len(w)
        odd = sum(1 for w in shortest if (len(w) - len(self.frag)) % 2 == 0)
        return (f"Count letters from here: a word that needs an even number of further letters will be finished "
                f"by the bot. Of the {len(shortest)} words still reachable, {odd} would be finished by the bot. "
                f"Steer into a branch where every ending falls on the bot, remembering a shorter listed word "
                f"inside a longer one ends the game first.")

    def reference_action(self):
        if self.done:
            return "a"
        fallback = None
        for ch in self.tie:
            if ch not in continuations(self.frag):
                continue
            nxt = self.frag + ch
            if nxt not in WORDS and not mover_wins(nxt):
                return ch
            if fallback is None or nxt not in WORDS:
                fallback = ch
        return fallback or "a"
