# shape: HumanEval-style function completion: one FIXED specification (signature + docstring + examples, identical
# on every seed); the hidden tests are drawn from the seed; test feedback between tries.
"""Implement Hamilton (largest remainder) apportionment of assembly seats; hidden tests vary by seed."""

from fractions import Fraction

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "SeatApportionHamilton",
    "domain": "code",
    "description": (
        "HumanEval-style completion: implement apportion(populations, seats), the largest remainder (Hamilton) "
        "method with a fully specified tie rule and error cases. The prompt is the same on every seed; the hidden "
        "tests are drawn from the seed. Each failed try reveals one failing hidden test."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 6, "max": 24, "default": 12, "description": "number of hidden random tests"},
        "max_regions": {"min": 3, "max": 12, "default": 6, "description": "largest number of regions in a test"},
    },
    "grounding": (
        "The Estates General of 1789: deputies were apportioned among electoral districts (bailliages) by "
        "population; the Third Estate's demand for representation proportional to population is the rule coded here."
    ),
    "tags": ["code", "humaneval", "apportionment", "fractions", "multi-turn"],
}

PROMPT = '''Complete this function. Reply with the whole function in a ```python block.

```python
def apportion(populations, seats):
    """Share `seats` assembly seats among regions by the largest remainder (Hamilton) method.

    populations: list of non-negative ints (one per region); seats: non-negative int.
    1. Each region's quota is populations[i] * seats / sum(populations) (an exact rational number).
    2. Each region first gets the integer part (floor) of its quota.
    3. The seats left over go, one each, to the regions with the largest fractional parts of their
       quotas. Ties on the fractional part go to the region with the larger population, and if the
       populations are equal too, to the region with the smaller index.
    Return a list of ints (same order as populations) that sums to seats.
    Raise ValueError if populations is empty, any population is negative, seats is negative,
    or the populations sum to 0.

    >>> apportion([5, 3, 2], 7)
    [4, 2, 1]
    >>> apportion([1, 1, 1], 2)
    [1, 1, 0]
    >>> apportion([100], 0)
    [0]
    """
```'''

EXAMPLES = [(([5, 3, 2], 7), [4, 2, 1]), (([1, 1, 1], 2), [1, 1, 0]), (([100], 0), [0])]


def hamilton(populations, seats):
    total = sum(populations)
    quotas = [Fraction(p * seats, total) for p in populations]
    base = [q.numerator // q.denominator for q in quotas]
    left = seats - sum(base)
    order = sorted(range(len(populations)), key=lambda i: (-(quotas[i] - base[i]), -populations[i], i))
    for i in order[:left]:
        base[i] = base[i] + 1
    return base


SOLUTION = '''def apportion(populations, seats):
    from fractions import Fraction
    if not populations or seats < 0 or any(p < 0 for p in populations) or sum(populations) == 0:
        raise ValueError("bad input")
    total = sum(populations)
    quotas = [Fraction(p * seats, total) for p in populations]
    result = [q.numerator // q.denominator for q in quotas]
    left = seats - sum(result)
    order = sorted(range(len(populations)), key=lambda i: (-(quotas[i] - result[i]), -populations[i], i))
    for i in order[:left]:
        result[i] += 1
    return result
'''


class SeatApportionHamilton:
    def __init__(self, hidden_tests=12, max_regions=6):
        self.hidden_tests = hidden_tests
        self.max_regions = max_regions
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.solved = False

    def _draw_case(self, rng, kind):
        n = rng.randint(2, self.max_regions)
        if kind == "tie":
            unit = rng.randint(1, 5)
            pops = [unit * rng.choice([1, 1, 2, 3]) for _ in range(n)]
        elif kind == "zero":
            pops = [rng.choice([0, rng.randint(1, 60)]) for _ in range(n)]
            pops[rng.randrange(n)] = rng.randint(1, 60)
        else:
            pops = [rng.randint(1, 900) for _ in range(n)]
        seats = rng.randint(0, 3 * n + 5)
        return pops, seats

    def reset(self, rng, options):
        self.turn = 0
        self.solved = False
        self.tests, self.labels, self.visible = [], [], []
        for (pops, seats), want in EXAMPLES:
            call = f"apportion({pops!r}, {seats!r})"
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want!r}")
            self.visible.append(self.tests[-1])
        seen = set()
        kinds = ["tie", "zero", "plain"]
        tries = 0
        while len(self.tests) < 3 + self.hidden_tests and tries < 500:
            tries = tries + 1
            pops, seats = self._draw_case(rng, kinds[len(self.tests) % 3])
            key = (tuple(pops), seats)
            if key in seen:
                continue
            seen.add(key)
            call = f"apportion({pops!r}, {seats!r})"
            want = hamilton(pops, seats)
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want!r}")
        bad_pops = rng.choice([[3, -1, 4], [0, 0], []])
        errors = [f"apportion({bad_pops!r}, {rng.randint(1, 9)})", f"apportion([{rng.randint(1, 50)}, 7], -{rng.randint(1, 4)})"]
        for call in errors:
            self.tests.append(raises_test(call, "ValueError"))
            self.labels.append(f"{call} raises ValueError")
        return PROMPT, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        done = left <= 0
        code, error = parse_code(action)
        if error is None and "apportion" not in defined_names(code):
            error = "your code does not define apportion() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{PROMPT}"
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return obs, 0.0, False, done, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.solved = True
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        revealed = ""
        for i, item in enumerate(result["results"]):
            if result["error"] is None and not item["ok"] and self.tests[i] not in self.visible:
                self.visible.append(self.tests[i])
                revealed = f"\nNewly revealed failing test: {self.labels[i]}\n  error: {(item['error'] or '')[:300]}"
                break
        obs = f"{feedback}{revealed}\nSend the whole function again. Turns left: {left}."
        return obs, 0.0, False, done, info

    def privileged_hint(self):
        return (
            "Keep the quotas as exact Fractions (floats misorder equal remainders), give the floors first, then sort "
            "regions by (fractional part descending, population descending, index ascending) and hand out the rest; "
            "check the ValueError cases before dividing."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
