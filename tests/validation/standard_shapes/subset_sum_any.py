# shape: any valid output is accepted (any sub-collection of the numbers that sums to the target)
"""Pick some of the given numbers so they add up to the target: many selections are right, and the verifier
checks the sum and that each number is used no more often than it appears, never one expected list."""

import re

ENV_SPEC = {
    "name": "AnySubsetSum",
    "domain": "math",
    "description": "Choose numbers from a list that add up exactly to a target; any valid choice is accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"count": {"min": 5, "max": 14, "default": 8, "description": "numbers offered"}},
    "grounding": "Subset sum: a selection of the numbers, each used at most once, whose total is the target.",
    "tags": ["subset-sum", "any-valid-output", "combinatorics"],
}

NUMBER = re.compile(r"-?\d+")


class AnySubsetSum:
    def __init__(self, count=8):
        self.count = count
        self.numbers = []
        self.target = 0
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.numbers = [rng.randint(2, 60) for _ in range(self.count)]
        chosen = rng.sample(range(self.count), rng.randint(2, max(2, self.count // 2)))
        self.target = sum(self.numbers[i] for i in chosen)
        return (f"Numbers: {', '.join(map(str, self.numbers))}. Choose some of them (each at most as often as it "
                f"is listed) that add up to exactly {self.target}. Reply with the chosen numbers separated by "
                "commas, e.g. 12, 7, 30. Any correct choice is accepted; you have 2 tries."), {}

    def step(self, action):
        self.turn = self.turn + 1
        text = action.strip()
        if not text or re.fullmatch(r"[\d\s,+-]+", text) is None:
            info = {"success": False, "format_error": "expected numbers separated by commas"}
            return "Reply with numbers separated by commas.", 0.0, self.turn >= 2, False, info
        picked = [int(n) for n in NUMBER.findall(text)]
        left = list(self.numbers)
        for n in picked:
            if n not in left:
                return f"{n} is not available.", 0.0, self.turn >= 2, False, {"success": False}
            left.remove(n)
        if sum(picked) == self.target:
            return "Correct.", 1.0, True, False, {"success": True}
        return f"Those add up to {sum(picked)}.", 0.0, self.turn >= 2, False, {"success": False}

    def privileged_hint(self):
        return "Try the largest numbers first and back up when the total overshoots."

    def reference_action(self):
        reachable = {0: []}
        for n in self.numbers:
            for total, used in list(reachable.items()):
                if total + n <= self.target and total + n not in reachable:
                    reachable[total + n] = used + [n]
        return ", ".join(map(str, reachable[self.target]))
