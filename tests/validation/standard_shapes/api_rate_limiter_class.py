# shape: class spec (a fixed-window, sliding-log or token-bucket RateLimiter per seed); a knob sets only the length of the hidden call sequences
"""Implement a RateLimiter class for one of three standard algorithms; hidden call sequences are drawn per seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ApiRateLimiterClass",
    "domain": "code",
    "description": (
        "The agent implements class RateLimiter(limit, window) with allow(t) -> bool for the algorithm the seed "
        "specifies: fixed window counter, sliding log, or token bucket. Hidden tests replay seed-drawn sequences "
        "of request timestamps on fresh instances and compare the accept/reject pattern; feedback lists failing "
        "visible sequences and counts hidden ones."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "calls": {"min": 5, "max": 24, "default": 12, "description": "requests per hidden sequence"},
        "hidden": {"min": 3, "max": 10, "default": 6, "description": "hidden sequences"},
    },
    "grounding": (
        "API gateway rate limiting as documented by cloud providers and nginx/Envoy: fixed-window counters reset "
        "at window boundaries, sliding logs count accepted requests in the trailing window, token buckets refill "
        "at a steady rate up to a burst capacity; rejected requests (HTTP 429) consume nothing."
    ),
    "tags": ["code", "class-design", "stateful", "simulation"],
}

SPECS = {
    "fixed": (
        "Fixed window counter. Time is split into windows [0, window), [window, 2*window), ... (absolute, "
        "starting at t = 0). allow(t) returns True and counts the request if fewer than limit requests were "
        "accepted in the window containing t; otherwise it returns False. Rejected requests are not counted."
    ),
    "sliding": (
        "Sliding log. allow(t) returns True and records t if fewer than limit accepted requests have timestamps "
        "s with t - window < s <= t (the last window seconds, the current second included); otherwise it returns "
        "False. Rejected requests are not recorded."
    ),
    "token": (
        "Token bucket. The bucket holds at most limit tokens and is full at the first call. Starting from the "
        "time f of the first call, one token is added at each of the times f + window, f + 2*window, ... (never "
        "above limit; a token that would overflow is lost). allow(t) first adds every token due at or before t, "
        "then returns True and removes one token if at least one is left, else returns False."
    ),
}


def simulate(kind, limit, window, times):
    out = []
    if kind == "fixed":
        counts = {}
        for t in times:
            key = t // window
            ok = counts.get(key, 0) < limit
            if ok:
                counts[key] = counts.get(key, 0) + 1
            out.append(ok)
        return out
    if kind == "sliding":
        log = []
        for t in times:
            live = [s for s in log if t - window < s <= t]
            ok = len(live) < limit
            if ok:
                log.append(t)
            out.append(ok)
        return out
    tokens = limit
    next_refill = None
    for t in times:
        if next_refill is None:
            next_refill = t + window
        while next_refill <= t:
            tokens = min(limit, tokens + 1)
            next_refill = next_refill + window
        ok = tokens > 0
        if ok:
            tokens = tokens - 1
        out.append(ok)
    return out


class ApiRateLimiterClass:
    def __init__(self, calls=12, hidden=6):
        self.calls = calls
        self.hidden = hidden
        self.kind = "fixed"
        self.cases = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def _times(self, rng, n, window):
        t = rng.randint(0, window * 2)
        out = []
        for _ in range(n):
            out.append(t)
            r = rng.random()
            if r < 0.45:
                t = t + 0
            elif r < 0.8:
                t = t + rng.randint(1, max(1, window // 2))
            else:
                t = t + rng.randint(window - 1, window + 2)
        return out

    def reset(self, rng, options):
        self.kind = rng.choice(["fixed", "sliding", "token"])
        self.turn = 0
        self.done = False
        self.cases = []
        for i in range(2 + self.hidden):
            limit = rng.randint(1, 4)
            window = rng.randint(2, 10)
            n = 8 if i < 2 else self.calls
            self.cases.append((limit, window, self._times(rng, n, window)))
        self.tests, self.labels = [], []
        for limit, window, times in self.cases:
            call = f"(lambda r: [r.allow(t) for t in {times!r}])(RateLimiter({limit}, {window}))"
            expected = simulate(self.kind, limit, window, times)
            self.tests.append(equality_test(call, expected))
            pattern = "".join("Y" if x else "n" for x in expected)
            self.labels.append(f"RateLimiter({limit}, {window}) with allow(t) for t in {times}: {pattern}")
        self.visible = self.tests[:2]
        return self._task(), {"algorithm": self.kind}

    def _task(self):
        examples = "\n".join("  " + label for label in self.labels[:2])
        return (
            "Write class RateLimiter:\n"
            "  RateLimiter(limit: int, window: int)   limit >= 1 requests, window >= 1 seconds\n"
            "  allow(t: int) -> bool                  t is the request time in whole seconds; calls come with "
            "non-decreasing t (several calls may share a t)\n"
            f"Algorithm: {SPECS[self.kind]}\n\n"
            f"Examples (Y = True, n = False, one letter per call in order):\n{examples}\n\n"
            "Each test builds a fresh RateLimiter. Reply with the class in a ```python block; hidden tests replay "
            f"other sequences. You have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "RateLimiter" not in defined_names(code):
            error = "your code does not define class RateLimiter at the top level"
        if error is not None:
            if left <= 0:
                self.done = True
            obs = f"Format error: {error}. Send the class in a ```python block. Submissions left: {left}."
            return obs, 0.0, self.done, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.done = True
            info["success"] = True
            return f"All {len(self.tests)} sequences match.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        if left <= 0:
            self.done = True
            return f"{feedback}\nNo submissions left.", 0.0, True, False, info
        return f"{feedback}\nSubmissions left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return {
            "fixed": "The window index is t // window; keep a count per index (or reset the count when the index "
                     "changes) and only count accepted calls.",
            "sliding": "Keep the accepted timestamps in a deque; before deciding, drop those with s <= t - window, "
                       "so a request exactly window seconds old no longer counts.",
            "token": "Anchor the refill schedule at the first call, not at the last refill you observed or at "
                     "t = 0; catch up every due refill with a loop (capping at limit each time) before spending.",
        }[self.kind]

    def reference_action(self):
        if self.kind == "fixed":
            body = (
                "    def __init__(self, limit, window):\n"
                "        self.limit, self.window = limit, window\n"
                "        self.key, self.count = None, 0\n\n"
                "    def allow(self, t):\n"
                "        key = t // self.window\n"
                "        if key != self.key:\n"
                "            self.key, self.count = key, 0\n"
                "        if self.count < self.limit:\n"
                "            self.count += 1\n"
                "            return True\n"
                "        return False\n"
            )
        elif self.kind == "sliding":
            body = (
                "    def __init__(self, limit, window):\n"
                "        self.limit, self.window = limit, window\n"
                "        self.log = []\n\n"
                "    def allow(self, t):\n"
                "        self.log = [s for s in self.log if s > t - self.window]\n"
                "        if len(self.log) < self.limit:\n"
                "            self.log.append(t)\n"
                "            return True\n"
                "        return False\n"
            )
        else:
            body = (
                "    def __init__(self, limit, window):\n"
                "        self.limit, self.window = limit, window\n"
                "        self.tokens = limit\n"
                "        self.next_refill = None\n\n"
                "    def allow(self, t):\n"
                "        if self.next_refill is None:\n"
                "            self.next_refill = t + self.window\n"
                "        while self.next_refill <= t:\n"
                "            self.tokens = min(self.limit, self.tokens + 1)\n"
                "            self.next_refill += self.window\n"
                "        if self.tokens > 0:\n"
                "            self.tokens -= 1\n"
                "            return True\n"
                "        return False\n"
            )
        return "```python\nclass RateLimiter:\n" + body + "```"
