# shape: one-player 1-D peg solitaire built by reverse jumps (always solvable), one restart.
"""One-dimensional peg solitaire: jump pegs along a row until a single peg remains."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "PegLineSolitaire",
    "domain": "games",
    "description": (
        "Peg solitaire on a single row of holes numbered 1..L. A move jumps a peg over an adjacent peg into the "
        "empty hole just beyond it (two holes away, left or right); the jumped peg is removed. Goal: leave exactly "
        "one peg. Reply 'jump F T' (from hole F to hole T, |F-T| = 2). When no jump is possible with more than "
        "one peg left you are stuck: reply 'restart' to return to the starting row; one restart is allowed, "
        "and being stuck with no restart left ends the game. Reward 1 for a single peg, else 0."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "pegs": {"min": 5, "max": 10, "default": 8, "description": "number of pegs in the starting row"},
    },
    "grounding": "Peg solitaire (solitaire, Hi-Q) reduced to one dimension: jumps remove the jumped peg.",
    "tags": ["puzzle", "single-player", "planning", "peg-solitaire"],
}

MEMO = {}


def jumps(row):
    out = []
    n = len(row)
    for f in range(n):
        if row[f] != "o":
            continue
        for d in (-1, 1):
            m, t = f + d, f + 2 * d
            if 0 <= t < n and row[m] == "o" and row[t] == ".":
                out.append((f, t))
    return out


def apply(row, f, t):
    out = list(row)
    out[f], out[(f + t) // 2], out[t] = ".", ".", "o"
    return "".join(out)


def solvable(row):
    if row not in MEMO:
        MEMO[row] = row.count("o") == 1 or any(solvable(apply(row, f, t)) for f, t in jumps(row))
    return MEMO[row]


class PegLineSolitaire:
    def __init__(self, pegs=8):
        self.pegs = pegs
        self.length = pegs + 7
        self.start = ""
        self.row = ""
        self.moves = 0
        self.restarts = 1
        self.done = False

    def reset(self, rng, options):
        self.done = False
        self.moves = 0
        self.restarts = 1
        for _ in range(300):
            row = ["."] * self.length
            row[rng.randrange(self.length)] = "o"
            for _ in range(self.pegs - 1):
                back = []
                for c in range(self.length):
                    for d in (-1, 1):
                        m, a = c + d, c + 2 * d
                        if row[c] == "o" and 0 <= a < self.length and row[m] == "." and row[a] == ".":
                            back.append((c, m, a))
                if not back:
                    break
                c, m, a = rng.choice(back)
                row[c], row[m], row[a] = ".", "o", "o"
            text = "".join(row)
            if text.count("o") == self.pegs and len(jumps(text)) >= 2:
                break
        self.start = text
        self.row = text
        return self.observation("A new row."), {"success": False, "pegs": self.row.count("o")}

    def render(self):
        nums = " ".join(f"{i + 1:>2}" for i in range(self.length))
        cells = " ".join(f"{ch:>2}" for ch in self.row)
        return f"hole: {nums}\npeg:  {cells}"

    def observation(self, note):
        return (f"{note}\n{self.render()}\n(o = peg, . = empty). Pegs left: {self.row.count('o')}. Restarts left: {self.restarts}. "
                f"Reply 'jump F T' or 'restart'.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        tokens = move_tokens(action, 60)
        if tokens == ["restart"]:
            if self.restarts <= 0:
                return self.observation("No restarts are left."), 0.0, False, False, \
                    {"success": False, "action_is_valid": False}
            self.restarts = self.restarts - 1
            self.row = self.start
            return self.observation("Back to the starting row."), 0.0, False, False, \
                {"success": False, "action_is_valid": True}
        if tokens and tokens[0] in ("jump", "move"):
            tokens = [t for t in tokens[1:] if t not in ("to", "from")]
        if len(tokens) != 2 or not all(t.lstrip("-").isdigit() for t in tokens):
            return self.observation(f"Could not read {safe_echo(action)!r}: reply 'jump F T' or 'restart'."), \
                0.0, False, False, {"success": False, "action_is_valid": False,
                                    "format_error": "expected 'jump F T' (two hole numbers) or 'restart'"}
        f, t = int(tokens[0]) - 1, int(tokens[1]) - 1
        if (f, t) not in jumps(self.row):
            why = f"holes are 1-{self.length}"
            if 0 <= f < self.length and 0 <= t < self.length:
                why = ("a jump goes exactly two holes, from a peg, over a peg, into an empty hole")
            return self.observation(f"Illegal jump {f + 1} -> {t + 1}: {why}."), 0.0, False, False, \
                {"success": False, "action_is_valid": False}
        self.row = apply(self.row, f, t)
        self.moves = self.moves + 1
        info = {"success": False, "pegs": self.row.count("o"), "action_is_valid": True}
        if self.row.count("o") == 1:
            self.done = True
            info["success"] = True
            return f"Jumped {f + 1} -> {t + 1}. One peg left: solved!\n{self.render()}", 1.0, True, False, info
        note = f"Jumped {f + 1} -> {t + 1}."
        if not jumps(self.row):
            if self.restarts <= 0:
                self.done = True
                return f"{note} No jumps are left and no restart remains: game over.\n{self.render()}", 0.0, \
                    True, False, info
            note = note + " No jumps are left: you are stuck. Reply 'restart' to try again (once)."
        return self.observation(note), 0.0, False, False, info

    def privileged_hint(self):
        if self.done:
            return "The puzzle is over."
        legal = jumps(self.row)
        if not legal:
            return "You are stuck: restart and choose differently where more than one jump was possible."
        good = sum(1 for f, t in legal if solvable(apply(self.row, f, t)))
        if not solvable(self.row):
            return "This row can no longer be reduced to one peg; restart."
        return (f"{good} of the {len(legal)} legal jumps keep a one-peg finish possible. A peg separated from "
                f"all others by two or more empty holes can never be removed, and a pair 'oo' with empty holes "
                f"on both sides must end by jumping into the gap that keeps it near the other pegs.")

    def reference_action(self):
        if self.done:
            return "restart"
        if not solvable(self.row):
            return "restart"
        for f, t in jumps(self.row):
            if solvable(apply(self.row, f, t)):
                return f"jump {f + 1} {t + 1}"
        return "restart"
