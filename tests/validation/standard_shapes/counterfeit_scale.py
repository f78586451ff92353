# shape: guessing game with feedback over a small secret space (counterfeit coin: which coin, heavier or lighter; 2N <= 24 secrets)
"""The twelve-coin balance puzzle: find the odd coin and whether it is heavier or lighter, with three weighings."""

from functools import cache

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "CounterfeitCoinScale",
    "domain": "games",
    "description": (
        "Among N numbered coins exactly one is counterfeit, either heavier or lighter than the others. Use a pan "
        "balance at most three times ('weigh 1 2 3 vs 4 5 6', equal numbers of coins per pan; the result is left "
        "heavier, right heavier or balanced), then give one final answer such as 'answer 7 light'."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "players": 1,
    "difficulty": {
        "coins": {"min": 6, "max": 12, "default": 12,
                  "description": "number of coins (2 x coins possible secrets; 12 is the classic tight case)"},
    },
    "grounding": "The classic twelve-coin problem (Dyson 1946): 3 weighings give 27 outcomes, enough for the 24 "
                 "cases of 12 coins, with every weighing splitting the possibilities evenly.",
    "tags": ["deduction", "single-player", "guessing", "balance-puzzle"],
}

WEIGHINGS = 3
SEPARATORS = ("vs", "v", "versus", "against", "and")


@cache
def plan(both, heavy, light, total, left_uses):
    """A weighing (counts per category on each pan) that still lets the remaining weighings finish, or None.
    Categories: coins that may be heavy or light, only heavy, only light, and known genuine ones."""
    genuine = total - both - heavy - light
    if 2 * both + heavy + light <= 1:
        return ()
    if left_uses == 0 or 2 * both + heavy + light > 3 ** left_uses:
        return None
    for b1 in range(both + 1):
        for b2 in range(both - b1 + 1):
            for h1 in range(heavy + 1):
                for h2 in range(heavy - h1 + 1):
                    for l1 in range(light + 1):
                        for l2 in range(light - l1 + 1):
                            diff = (b1 + h1 + l1) - (b2 + h2 + l2)
                            g1, g2 = (0, diff) if diff >= 0 else (-diff, 0)
                            if max(g1, g2) > genuine or b1 + h1 + l1 + g1 == 0:
                                continue
                            outcomes = [(0, b1 + h1, b2 + l2), (0, b2 + h2, b1 + l1),
                                        (both - b1 - b2, heavy - h1 - h2, light - l1 - l2)]
                            if all(plan(o[0], o[1], o[2], total, left_uses - 1) is not None for o in outcomes):
                                return ((b1, h1, l1, g1), (b2, h2, l2, g2))
    return None


class CounterfeitCoinScale:
    def __init__(self, coins=12):
        self.coins = coins
        self.secret = (1, "heavy")
        self.suspects = set()
        self.log = []
        self.used = 0
        self.turns = 0
        self.finished = False
        self.order = []

    def reset(self, rng, options):
        self.secret = (rng.randint(1, self.coins), rng.choice(["heavy", "light"]))
        self.suspects = {(c, kind) for c in range(1, self.coins + 1) for kind in ("heavy", "light")}
        self.log = []
        self.used = 0
        self.turns = 0
        self.finished = False
        self.order = list(range(1, self.coins + 1))  # the reference reads only public facts
        return self.render("New puzzle."), {"weighings_left": WEIGHINGS}

    def render(self, note):
        history = "\n".join(f"  {i + 1}. {entry}" for i, entry in enumerate(self.log)) or "  (none yet)"
        return (
            f"{note}\nCoins: 1 to {self.coins}. Exactly one is counterfeit: heavier or lighter than the rest.\n"
            f"Weighings so far:\n{history}\nWeighings left: {WEIGHINGS - self.used}.\n"
            f"Reply 'weigh A B ... vs C D ...' (same number of coins on each pan, no coin twice) or give your one "
            f"final answer as 'answer <coin> heavy' or 'answer <coin> light'."
        )

    def weigh(self, left, right):
        coin, kind = self.secret
        if coin in left:
            return "left" if kind == "heavy" else "right"
        if coin in right:
            return "right" if kind == "heavy" else "left"
        return "balanced"

    def parse(self, action):
        """('weigh', left, right) | ('answer', coin, kind) | (None, problem, format_error)."""
        tokens = move_tokens(action, 200)
        kinds = {"heavy": "heavy", "heavier": "heavy", "light": "light", "lighter": "light"}
        if not tokens:
            return (None, "Empty or unreadable reply.", "expected 'weigh ... vs ...' or 'answer <coin> heavy|light'")
        found = [kinds[t] for t in tokens if t in kinds]
        numbers = [int(t) for t in tokens if t.isdigit() and len(t) <= 4]
        if found or tokens[0] in ("answer", "guess"):
            if len(found) != 1 or len(numbers) != 1:
                return (None, "An answer names one coin and 'heavy' or 'light', e.g. 'answer 7 light'.",
                        "expected 'answer <coin> heavy|light'")
            return ("answer", numbers[0], found[0])
        seps = [i for i, t in enumerate(tokens) if t in SEPARATORS]
        if len(seps) != 1:
            return (None, "A weighing lists the left pan, then 'vs', then the right pan.",
                    "expected 'weigh A B vs C D'")
        cut = seps[0]
        left = [int(t) for t in tokens[:cut] if t.isdigit() and len(t) <= 4]
        right = [int(t) for t in tokens[cut + 1:] if t.isdigit() and len(t) <= 4]
        return ("weigh", left, right)

    def step(self, action):
        self.turns += 1
        if self.finished:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        out_of_turns = self.turns >= ENV_SPEC["max_turns"]
        kind, a, b = self.parse(action)
        if kind is None:
            obs = self.render(f"Could not use {safe_echo(action)!r}: {a}")
            self.finished = out_of_turns
            return obs, 0.0, False, out_of_turns, {"format_error": b, "action_is_valid": False,
                                                   "weighings_left": WEIGHINGS - self.used}
        if kind == "answer":
            self.finished = True
            right = (a, b) == self.secret
            if right:
                return f"Correct: coin {a} is {b}er.", 1.0, True, False, {"success": True}
            return (f"Wrong: coin {self.secret[0]} was the counterfeit, and it was {self.secret[1]}er.", 0.0, True,
                    False, {"success": False})
        problem = None
        if self.used >= WEIGHINGS:
            problem = "You have used all three weighings; give your final answer."
        elif not a or len(a) != len(b):
            problem = f"The pans hold {len(a)} and {len(b)} coins; put the same number (at least one) on each."
        elif len(set(a + b)) != len(a + b):
            problem = "A coin cannot be on the scale twice."
        elif any(not 1 <= c <= self.coins for c in a + b):
            problem = f"Coins are numbered 1 to {self.coins}."
        if problem is not None:
            self.finished = out_of_turns
            return (self.render(problem), 0.0, False, out_of_turns,
                    {"action_is_valid": False, "weighings_left": WEIGHINGS - self.used})
        result = self.weigh(a, b)
        self.used += 1
        keep = set()
        for coin, heavy_or_light in self.suspects:
            side = "left" if coin in a else ("right" if coin in b else None)
            if side is None:
                predicted = "balanced"
            elif heavy_or_light == "heavy":
                predicted = side
            else:
                predicted = "right" if side == "left" else "left"
            if predicted == result:
                keep.add((coin, heavy_or_light))
        self.suspects = keep
        words = {"left": "the left pan is heavier", "right": "the right pan is heavier", "balanced": "they balance"}
        self.log.append(f"{' '.join(map(str, a))} vs {' '.join(map(str, b))}: {words[result]}")
        self.finished = out_of_turns
        return (self.render(f"Weighed: {words[result]}."), 0.0, False, out_of_turns,
                {"result": result, "weighings_left": WEIGHINGS - self.used})

    def categories(self):
        coins = {}
        for coin, kind in self.suspects:
            coins.setdefault(coin, set()).add(kind)
        both = [c for c in self.order if len(coins.get(c, ())) == 2]
        heavy = [c for c in self.order if coins.get(c) == {"heavy"}]
        light = [c for c in self.order if coins.get(c) == {"light"}]
        genuine = [c for c in self.order if c not in coins]
        return both, heavy, light, genuine

    def privileged_hint(self):
        both, heavy, light, genuine = self.categories()
        left = WEIGHINGS - self.used
        remaining = 2 * len(both) + len(heavy) + len(light)
        return (f"{remaining} (coin, heavy/light) cases remain: {len(both)} coins could still be either, "
                f"{len(heavy)} could only be heavy, {len(light)} only light, {len(genuine)} are proven genuine. "
                f"With {left} weighing(s) left, each of the three outcomes of the next weighing must leave at most "
                f"{3 ** max(left - 1, 0)} cases; genuine coins are useful fillers.")

    def reference_action(self):
        if len(self.suspects) == 1:
            coin, kind = next(iter(self.suspects))
            return f"answer {coin} {kind}"
        both, heavy, light, genuine = self.categories()
        step = plan(len(both), len(heavy), len(light), self.coins, WEIGHINGS - self.used)
        if not step:
            coin, kind = min(self.suspects)
            return f"answer {coin} {kind}"
        (b1, h1, l1, g1), (b2, h2, l2, g2) = step
        left = both[:b1] + heavy[:h1] + light[:l1] + genuine[:g1]
        right = both[b1:b1 + b2] + heavy[h1:h1 + h2] + light[l1:l1 + l2] + genuine[g1:g1 + g2]
        return f"weigh {' '.join(map(str, sorted(left)))} vs {' '.join(map(str, sorted(right)))}"
