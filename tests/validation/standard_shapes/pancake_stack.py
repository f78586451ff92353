# shape: one-player pancake sorting ('flip k'), budget the fewest flips plus slack, small start space
"""Sort a stack of pancakes with prefix reversals (a spatula flip) within a flip budget."""

from collections import deque

from spade_domains.games.verify import move_integers, move_tokens, safe_echo

ENV_SPEC = {
    "name": "PancakeSpatula",
    "domain": "games",
    "description": (
        "A stack of pancakes of distinct sizes 1..n is listed from top to bottom. 'flip k' slides the spatula "
        "under the k-th pancake from the top and turns the top k over (their order reverses). Sort the stack so "
        "the smallest is on top and the largest at the bottom within the flip budget, which is the fewest flips "
        "possible plus a small slack."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "stack_size": {"min": 5, "max": 7, "default": 6, "description": "pancakes in the stack"},
        "slack": {"min": 0, "max": 2, "default": 1, "description": "extra flips allowed beyond the optimum"},
    },
    "grounding": (
        "The pancake sorting problem (Dweck/Gates-Papadimitriou): sort a permutation using prefix reversals; "
        "the fewest flips is the pancake distance, at most 2n-3 by the bring-largest-to-top method."
    ),
    "tags": ["puzzle", "planning", "permutations", "single-player"],
}

DISTANCES = {}  # pure cache: n -> {permutation: fewest flips to sorted}


def distances(n):
    if n not in DISTANCES:
        goal = tuple(range(1, n + 1))
        dist = {goal: 0}
        queue = deque([goal])
        while queue:
            p = queue.popleft()
            for k in range(2, n + 1):
                q = tuple(reversed(p[:k])) + p[k:]
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
        DISTANCES[n] = dist
    return DISTANCES[n]


class PancakeSpatula:
    def __init__(self, stack_size=6, slack=1):
        self.n = stack_size
        self.slack = slack
        self.stack = tuple(range(1, stack_size + 1))
        self.budget = 0
        self.used = 0
        self.done = False
        self.tie = list(range(2, stack_size + 1))

    def reset(self, rng, options):
        dist = distances(self.n)
        low = self.n - 2
        while True:
            perm = list(range(1, self.n + 1))
            rng.shuffle(perm)
            if dist[tuple(perm)] >= low:
                break
        self.stack = tuple(perm)
        self.budget = dist[self.stack] + self.slack
        self.used = 0
        self.done = False
        self.tie = rng.sample(list(range(2, self.n + 1)), self.n - 1)
        obs = (
            f"Pancake stack of {self.n} (sizes 1 = smallest to {self.n} = largest). Sort it smallest on top, "
            f"largest at the bottom, in at most {self.budget} flips. Reply 'flip k' (2 <= k <= {self.n}) to turn "
            f"over the top k pancakes.\n{self.render()}"
        )
        return obs, {"flips_left": self.budget}

    def render(self):
        return "Stack, top to bottom: " + " ".join(str(x) for x in self.stack) + \
            f"  (flips used {self.used}/{self.budget})"

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        toks = move_tokens(action, 40)
        nums = move_integers(action, 40)
        words = [t for t in toks if not t.lstrip("-").isdigit()]
        if len(nums) != 1 or any(w not in ("flip", "top") for w in words):
            obs = f"Cannot read {safe_echo(action)!r}: reply 'flip k' with one whole number k.\n{self.render()}"
            return obs, 0.0, False, False, {"format_error": "expected 'flip k' with 2 <= k <= n",
                                            "flips_left": self.budget - self.used}
        k = nums[0]
        if not 2 <= k <= self.n:
            obs = f"flip {k} is not allowed: k must be between 2 and {self.n}.\n{self.render()}"
            return obs, 0.0, False, False, {"action_is_valid": False, "flips_left": self.budget - self.used}
        self.stack = tuple(reversed(self.stack[:k])) + self.stack[k:]
        self.used = self.used + 1
        if self.stack == tuple(range(1, self.n + 1)):
            self.done = True
            return f"Sorted in {self.used} flips!\n{self.render()}", 1.0, True, False, {"success": True}
        if self.used >= self.budget:
            self.done = True
            return f"Out of flips; the stack is not sorted.\n{self.render()}", 0.0, True, False, {"success": False}
        return f"Flipped the top {k}.\n{self.render()}", 0.0, False, False, {"success": False,
                                                                            "flips_left": self.budget - self.used}

    def privileged_hint(self):
        d = distances(self.n)[self.stack]
        room = "no flip to spare: every flip must be on a shortest path" if self.budget - self.used == d else \
            "a little room for a detour, but not much"
        return (
            f"You have {room}. Count the 'breakpoints' (neighbours whose sizes differ by more than one, counting "
            "the plate below as the largest size plus one): one flip removes at most one breakpoint, so prefer "
            "flips that bring two consecutive sizes together."
        )

    def reference_action(self):
        dist = distances(self.n)
        if self.done:
            return "flip 2"
        for k in self.tie:
            q = tuple(reversed(self.stack[:k])) + self.stack[k:]
            if dist[q] == dist[self.stack] - 1:
                return f"flip {k}"
        return "flip 2"
