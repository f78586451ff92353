# shape: single-player game against a scripted opponent (Wythoff's game, normal play, agent moves first)
"""Wythoff's game against a scripted opponent: take from one pile, or the same amount from both."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "WythoffQueenDuel",
    "domain": "games",
    "description": (
        "Wythoff's game with two piles of counters against a scripted opponent. On a turn you remove any positive "
        "number of counters from one pile, or the same positive number from both piles. Whoever takes the last "
        "counter wins. You move first from a position that is a win for you; the opponent punishes any slip."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "max_pile": {"min": 8, "max": 40, "default": 20, "description": "largest starting pile size"},
    },
    "grounding": "Wythoff's game (1907): the losing positions are the pairs (floor(k*phi), floor(k*phi^2)).",
    "tags": ["combinatorial", "single-player", "scripted-opponent"],
}


def cold_pairs(limit):
    """Wythoff's losing positions (a, b), a <= b, built by the mex construction up to limit."""
    used, pairs, k = set(), [], 0
    a = 0
    while a <= limit:
        while a in used:
            a += 1
        b = a + k
        pairs.append((a, b))
        used.add(a)
        used.add(b)
        k += 1
        a += 1
    return pairs


def is_cold(x, y, cold):
    return (min(x, y), max(x, y)) in cold


class WythoffDuel:
    def __init__(self, max_pile=20):
        self.max_pile = max_pile
        self.piles = [0, 0]
        self.cold = set()
        self.noise = []
        self.turns = 0
        self.done = False
        self.log = []

    def reset(self, rng, options):
        self.cold = set(cold_pairs(2 * self.max_pile + 2))
        while True:
            x, y = rng.randint(1, self.max_pile), rng.randint(1, self.max_pile)
            if not is_cold(x, y, self.cold) and x != y:
                break
        self.piles = [x, y]
        self.noise = [rng.random() for _ in range(ENV_SPEC["max_turns"] + 1)]
        self.turns = 0
        self.done = False
        self.log = []
        return self.observation("New game: you move first."), {"piles": list(self.piles)}

    def moves(self, x, y):
        out = [(k, 0) for k in range(1, x + 1)] + [(0, k) for k in range(1, y + 1)]
        return out + [(k, k) for k in range(1, min(x, y) + 1)]

    def observation(self, note):
        text = (f"{note}\nPile A: {self.piles[0]}   Pile B: {self.piles[1]}\n"
                f"Remove counters from one pile, or the same number from both; taking the last counter wins.\n"
                f"Reply like 'take 3 from A', 'take 2 from B' or 'take 4 from both'.")
        if self.log:
            text += "\nHistory: " + "; ".join(self.log[-6:])
        return text

    def parse(self, action):
        tokens = move_tokens(action, 60)
        numbers = [int(t) for t in tokens if t.isdigit()]
        words = set(t for t in tokens if t.isalpha())
        if len(numbers) != 1 or numbers[0] < 1:
            return None
        k = numbers[0]
        if "both" in words:
            return (k, k)
        if "a" in words and "b" not in words:
            return (k, 0)
        if "b" in words and "a" not in words:
            return (0, k)
        return None

    def bot_move(self):
        x, y = self.piles
        options = self.moves(x, y)
        winning = [m for m in options if is_cold(x - m[0], y - m[1], self.cold)]
        pool = winning or options
        return pool[int(self.noise[self.turns % len(self.noise)] * len(pool)) % len(pool)]

    def describe(self, m):
        if m[0] and m[1]:
            return f"{m[0]} from both"
        return f"{m[0]} from A" if m[0] else f"{m[1]} from B"

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        self.turns += 1
        out = self.turns >= ENV_SPEC["max_turns"]
        move = self.parse(action)
        if move is None:
            self.done = out
            return (self.observation(f"Could not read {safe_echo(action)!r}: say how many and from A, B or both."),
                    0.0, False, out, {"format_error": "expected 'take N from A|B|both'", "success": False})
        if move[0] > self.piles[0] or move[1] > self.piles[1]:
            self.done = out
            return (self.observation(f"You cannot take {self.describe(move)}: not enough counters."), 0.0, False,
                    out, {"action_is_valid": False, "success": False})
        self.piles = [self.piles[0] - move[0], self.piles[1] - move[1]]
        self.log.append(f"you took {self.describe(move)}")
        if self.piles == [0, 0]:
            self.done = True
            return "You took the last counter: you win!", 1.0, True, False, {"success": True}
        reply = self.bot_move()
        self.piles = [self.piles[0] - reply[0], self.piles[1] - reply[1]]
        self.log.append(f"opponent took {self.describe(reply)}")
        if self.piles == [0, 0]:
            self.done = True
            return f"The opponent took {self.describe(reply)}, the last counters: you lose.", 0.0, True, False, {
                "success": False}
        self.done = out
        return self.observation(f"You took {self.describe(move)}; the opponent took {self.describe(reply)}."), \
            0.0, False, out, {"success": False, "piles": list(self.piles)}

    def privileged_hint(self):
        pairs = sorted(p for p in self.cold if p[1] <= max(self.piles))[:5]
        shown = ", ".join(f"({a},{b})" for a, b in pairs)
        return (f"Leave the opponent on a cold position: the pairs {shown}, ... where the k-th pair differs by k "
                f"and every number appears exactly once (a_k is the smallest number not used before).")

    def reference_action(self):
        x, y = self.piles
        for m in self.moves(x, y):
            if is_cold(x - m[0], y - m[1], self.cold):
                return "take " + self.describe(m)
        return "take 1 from A" if x else "take 1 from B"
