# shape: any-valid-output task (any fewest-coin list for non-canonical coin systems, or None), checked by a ...
"""Return ANY fewest-coin change for non-canonical coin systems; a checker verifies each answer (many are valid)."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "FewestCoinsAnyList",
    "domain": "code",
    "description": (
        "Write make_change(amount, coins) returning a list of coins (unlimited supply of each denomination) that "
        "sums to amount with as few coins as possible, or None when impossible. Any optimal list in any order is "
        "accepted: hidden seed-drawn tests check sum, denominations and count, not one fixed answer."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "max_amount": {"min": 20, "max": 300, "default": 90, "description": "largest hidden amount"},
        "hidden": {"min": 4, "max": 14, "default": 8, "description": "hidden amount/coin-system tests"},
    },
    "grounding": (
        "The change-making problem: greedy is optimal only for canonical coin systems (like 1, 5, 10, 25); for "
        "systems such as {1, 3, 4} or the pre-decimal British {1, 3, 6, 12, 24, 30} pence coins greedy overpays, "
        "and the unbounded-knapsack dynamic programme over amounts gives the minimum."
    ),
    "tags": ["code", "dynamic-programming", "any-valid-output", "checker", "multi-turn"],
}

SPEC_TEXT = (
    "Write make_change(amount, coins). amount is an int >= 0; coins is a list of distinct positive ints "
    "(denominations, each available in unlimited supply, in no particular order). Return a Python list of "
    "denominations whose sum is exactly amount and whose length is as small as possible (any such list, in any "
    "order, is accepted; make_change(0, coins) is []). Return None if no combination makes amount."
)

SYSTEMS = [
    [1, 3, 4], [1, 5, 6, 9], [1, 3, 6, 12, 24, 30], [2, 5], [4, 7, 10], [1, 7, 10], [3, 8, 11],
    [5, 12, 13], [1, 15, 25], [6, 9, 20], [2, 9, 14], [1, 10, 21, 34],
]

SOLUTION = '''def make_change(amount, coins):
    best = [0] + [None] * amount
    last = [0] * (amount + 1)
    for value in range(1, amount + 1):
        for c in coins:
            if c <= value and best[value - c] is not None:
                if best[value] is None or best[value - c] + 1 < best[value]:
                    best[value] = best[value - c] + 1
                    last[value] = c
    if best[amount] is None:
        return None
    out = []
    while amount > 0:
        out.append(last[amount])
        amount -= last[amount]
    return out
'''


def fewest(amount, coins):
    best = [0] + [None] * amount
    for value in range(1, amount + 1):
        for c in coins:
            if c <= value and best[value - c] is not None:
                if best[value] is None or best[value - c] + 1 < best[value]:
                    best[value] = best[value - c] + 1
    return best[amount]


def greedy_count(amount, coins):
    count = 0
    for c in sorted(coins, reverse=True):
        count = count + amount // c
        amount = amount % c
    return count if amount == 0 else None


def check_test(amount, coins, k):
    call = f"make_change({amount}, {coins!r})"
    if k is None:
        return f"r = {call}\nassert r is None, 'got ' + repr(r)"
    allowed = tuple(sorted(coins))
    return (
        f"r = {call}\n"
        f"assert type(r) is list, 'expected a list, got ' + repr(r)\n"
        f"assert all(type(c) is int and c in {allowed!r} for c in r), 'not all items are denominations: ' + repr(r)\n"
        f"assert sum(r) == {amount}, 'sums to ' + repr(sum(r)) + ': ' + repr(r)\n"
        f"assert len(r) <= {k}, repr(len(r)) + ' coins is not the fewest: ' + repr(r)"
    )


class FewestCoinsAnyList:
    def __init__(self, max_amount=90, hidden=8):
        self.max_amount = max_amount
        self.hidden = hidden
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        shown = [(6, [1, 3, 4]), (7, [2, 4]), (0, [5, 2])]
        for amount, coins in shown:
            self.tests.append(check_test(amount, coins, fewest(amount, coins)))
            self.labels.append(f"example make_change({amount}, {coins!r})")
            self.visible.append(self.tests[-1])
        cases = []
        tries = 0
        greedy_traps = 0
        while len(cases) < self.hidden and tries < 1000:
            tries = tries + 1
            coins = list(rng.choice([s for s in SYSTEMS if max(s) + 6 <= self.max_amount]))
            rng.shuffle(coins)
            amount = rng.randint(max(coins) + 1, self.max_amount)
            k = fewest(amount, coins)
            trap = k is not None and greedy_count(amount, coins) != k
            if (amount, tuple(coins)) in cases:
                continue
            if not trap and greedy_traps < (len(cases) + 1) // 2 and tries < 800:
                continue
            greedy_traps = greedy_traps + (1 if trap else 0)
            cases.append((amount, tuple(coins)))
            self.tests.append(check_test(amount, coins, k))
            self.labels.append(f"make_change({amount}, {coins!r})")
        obs = (
            f"{SPEC_TEXT}\n\nExamples: make_change(6, [1, 3, 4]) may return [3, 3] (greedy's [4, 1, 1] is too "
            "long); make_change(7, [2, 4]) is None; make_change(0, [5, 2]) == [].\n\nReply with the function in a "
            f"```python block. Hidden tests use amounts up to {self.max_amount}. You have "
            f"{ENV_SPEC['max_turns']} submissions."
        )
        return obs, {"hidden_tests": len(cases)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "make_change" not in defined_names(code):
            error = "your code does not define make_change() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} checks pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "Greedy (largest coin first) is not optimal for these coin systems. Fill best[v] = fewest coins for every "
            "value v from 1 up to amount, remembering which coin achieved it, then walk back from amount to rebuild "
            "one optimal list; an unreachable amount stays None."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
