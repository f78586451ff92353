# expect: reference
# twin: lasker_nim_grundy
# flaw: the start is checked for a first-player win by the plain Nim sum, not by Lasker Nim values (splits change them), so a few percent of the starts cannot be won against the perfect bot
"""Lasker's Nim against a scripted opponent: take from a heap or split it in two; take the last counter to win."""

from functools import reduce
from operator import xor

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "LaskerNimSplit",
    "domain": "games",
    "description": (
        "Lasker's Nim against a scripted bot. Heaps of counters are numbered from 1. On a turn a player either "
        "takes one or more counters from a single heap ('take 3 from 2') or splits one heap into two non-empty "
        "heaps without taking anything ('split 2 into 4 and 3'; the new heaps replace heap 2 and go to the end). "
        "You move first; the bot replies after each of your moves. Whoever takes the last counter wins."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "heaps": {"min": 2, "max": 4, "default": 3, "description": "heaps at the start"},
        "largest": {"min": 6, "max": 20, "default": 12, "description": "largest possible starting heap"},
    },
    "grounding": (
        "Lasker's Nim (Emanuel Lasker, 1931): Nim where a heap may also be split in two; by the Sprague-Grundy "
        "theorem its values are g(4k+1)=4k+1, g(4k+2)=4k+2, g(4k+3)=4k+4, g(4k+4)=4k+3."
    ),
    "tags": ["scripted-opponent", "nim", "sprague-grundy", "single-player"],
}


def grundy(n):
    if n == 0:
        return 0
    return {1: n, 2: n, 3: n + 1, 0: n - 1}[n % 4]


def total(heaps):
    return reduce(xor, [grundy(h) for h in heaps], 0)


def all_moves(heaps):
    out = []
    for i, h in enumerate(heaps):
        for k in range(1, h + 1):
            out.append(("take", i, k))
        for a in range(h - 1, (h - 1) // 2, -1):
            if h - a >= 1 and a >= h - a:
                out.append(("split", i, a))
    return out


def apply_move(heaps, move):
    kind, i, k = move
    hs = list(heaps)
    if kind == "take":
        hs[i] = hs[i] - k
        return [h for h in hs if h > 0]
    a, b = k, hs[i] - k
    del hs[i]
    return hs + [a, b]


def say(move, heaps):
    kind, i, k = move
    if kind == "take":
        return f"take {k} from {i + 1}"
    return f"split {i + 1} into {k} and {heaps[i] - k}"


class LaskerNimSplit:
    def __init__(self, heaps=3, largest=12):
        self.count = heaps
        self.largest = largest
        self.heaps = []
        self.done = False
        self.tie = 0

    def reset(self, rng, options):
        self.done = False
        while True:
            hs = [rng.randint(1, self.largest) for _ in range(self.count)]
            # the agent moves first, so make sure the start is a first-player win
            if reduce(xor, hs, 0) != 0 and sum(hs) >= 6:
                break
        self.heaps = hs
        self.tie = rng.randint(0, 1000)
        obs = (
            "Lasker's Nim vs bot. Each turn: 'take K from H' (remove K >= 1 counters from heap H) or 'split H into "
            "A and B' (A, B >= 1, A + B = heap H; the two new heaps are appended at the end and heap H is removed, "
            "emptied heaps disappear too). Take the last counter to win. You move first.\n" + self.render()
        )
        return obs, {"heaps": list(self.heaps)}

    def render(self):
        return "Heaps: " + ", ".join(f"#{i + 1}={h}" for i, h in enumerate(self.heaps))

    def parse(self, action):
        toks = move_tokens(action, 60)
        nums = [int(t) for t in toks if t.isdigit() and len(t) <= 4]
        words = [t for t in toks if not t.isdigit()]
        if words[:1] == ["take"] and len(nums) == 2 and set(words) <= {"take", "from", "heap", "counters"}:
            return ("take", nums[1] - 1, nums[0])
        if words[:1] == ["split"] and len(nums) == 3 and set(words) <= {"split", "heap", "into", "and"}:
            return ("split", nums[0] - 1, nums[1], nums[2])
        return None

    def bot_move(self):
        moves = all_moves(self.heaps)
        winning = [m for m in moves if total(apply_move(self.heaps, m)) == 0]
        if winning:
            return winning[self.tie % len(winning)]
        takes = [m for m in moves if m[0] == "take" and m[2] == 1]
        return takes[self.tie % len(takes)]

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        move = self.parse(action)
        if move is None:
            return (f"Cannot read {safe_echo(action)!r}: reply 'take K from H' or 'split H into A and B'.\n"
                    f"{self.render()}", 0.0, False, False,
                    {"format_error": "expected 'take K from H' or 'split H into A and B'"})
        i = move[1]
        if not 0 <= i < len(self.heaps):
            return f"There is no heap {i + 1}.\n{self.render()}", 0.0, False, False, {"action_is_valid": False}
        h = self.heaps[i]
        if move[0] == "take":
            if not 1 <= move[2] <= h:
                return (f"Heap {i + 1} has {h}; take between 1 and {h}.\n{self.render()}", 0.0, False, False,
                        {"action_is_valid": False})
            real = move
        else:
            a, b = move[2], move[3]
            if a < 1 or b < 1 or a + b != h:
                return (f"A split of heap {i + 1} ({h}) needs two parts of at least 1 adding up to {h}.\n"
                        f"{self.render()}", 0.0, False, False, {"action_is_valid": False})
            real = ("split", i, a)
        mine = say(real, self.heaps)
        self.heaps = apply_move(self.heaps, real)
        if not self.heaps:
            self.done = True
            return f"You played {mine} and took the last counter. You win!", 1.0, True, False, {"success": True}
        bot = self.bot_move()
        theirs = say(bot, self.heaps)
        self.heaps = apply_move(self.heaps, bot)
        if not self.heaps:
            self.done = True
            return f"You played {mine}; the bot played {theirs} and took the last counter. You lose.", 0.0, True, \
                False, {"success": False}
        return f"You played {mine}; the bot played {theirs}.\n{self.render()}\nYour move.", 0.0, False, False, \
            {"success": False, "heaps": list(self.heaps)}

    def privileged_hint(self):
        return (
            "This is not plain Nim: a heap's value is its Sprague-Grundy number, which equals its size except that "
            "sizes 3, 7, 11, ... count one more and sizes 4, 8, 12, ... one less. Leave the bot a position whose "
            "values XOR to zero; a split can be the only way to do it."
        )

    def reference_action(self):
        if self.done or not self.heaps:
            return "take 1 from 1"
        moves = all_moves(self.heaps)
        winning = [m for m in moves if total(apply_move(self.heaps, m)) == 0]
        pick = winning[self.tie % len(winning)] if winning else moves[0]
        return say(pick, self.heaps)
