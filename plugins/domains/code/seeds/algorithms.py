"""Implement a classic algorithm: binary search, interval merge, topological order, LIS, edit distance, Dijkstra."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "Algorithms",
    "domain": "code",
    "description": (
        "Implement a classic algorithm from a precise specification; small, performance-independent hidden tests "
        "(degenerate inputs first) run in the sandbox and each turn reports the failing shown tests."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "tier": {
            "min": 1, "max": 3, "default": 2,
            "description": "1: searching/merging, 2: graphs/subsequences, 3: dynamic programming/shortest paths",
        },
        "hidden_tests": {"min": 3, "max": 10, "default": 6, "description": "hidden tests, degenerate inputs first"},
    },
    "grounding": (
        "Standard algorithms as taught in CLRS and competitive-programming primers: lower bound by binary "
        "search, interval merging, Kahn's topological sort, longest increasing subsequence, Levenshtein distance, "
        "Dijkstra's shortest paths."
    ),
    "tags": ["code", "algorithms", "hidden-tests", "multi-turn"],
}


def solve_lower_bound(args):
    nums, target = args
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def gen_lower_bound(rng):
    nums = sorted(rng.randint(0, 20) for _ in range(rng.randint(1, 9)))
    return (nums, rng.randint(-1, 21))


def solve_merge(args):
    out = []
    for start, end in sorted(args[0]):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def gen_merge(rng):
    intervals = []
    for _ in range(rng.randint(2, 6)):
        start = rng.randint(0, 20)
        intervals.append([start, start + rng.randint(0, 5)])
    return (intervals,)


def solve_topo(args):
    n, edges = args
    indegree = [0] * n
    for edge in edges:
        indegree[edge[1]] = indegree[edge[1]] + 1
    order = []
    ready = [i for i in range(n) if indegree[i] == 0]
    while ready:
        node = min(ready)
        ready.remove(node)
        order.append(node)
        for u, v in edges:
            if u == node:
                indegree[v] = indegree[v] - 1
                if indegree[v] == 0:
                    ready.append(v)
    return order if len(order) == n else []


def gen_topo(rng):
    n = rng.randint(3, 7)
    perm = list(range(n))
    rng.shuffle(perm)
    edges = []
    for _ in range(rng.randint(1, 2 * n)):
        a, b = sorted(rng.sample(range(n), 2))
        edge = [perm[a], perm[b]]
        if edge not in edges:
            edges.append(edge)
    if rng.random() < 0.25:
        edges.append([edges[0][1], edges[0][0]])
    return (n, edges)


def solve_lis(args):
    nums = args[0]
    best = [1] * len(nums)
    for i in range(len(nums)):
        for j in range(i):
            if nums[j] < nums[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best) if best else 0


def gen_lis(rng):
    return ([rng.randint(0, 12) for _ in range(rng.randint(2, 10))],)


def solve_edit(args):
    a, b = args
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(b)]


def gen_edit(rng):
    alphabet = rng.choice(["ab", "abc", "act"])
    return ("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))),
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))))


def solve_path(args):
    n, edges, src, dst = args
    inf = 10 ** 9
    dist = [inf] * n
    dist[src] = 0
    done = [False] * n
    for _ in range(n):
        node = -1
        for i in range(n):
            if not done[i] and dist[i] < inf and (node == -1 or dist[i] < dist[node]):
                node = i
        if node == -1:
            break
        done[node] = True
        for u, v, w in edges:
            if u == node and dist[node] + w < dist[v]:
                dist[v] = dist[node] + w
    return dist[dst] if dist[dst] < inf else -1


def gen_path(rng):
    n = rng.randint(3, 6)
    edges = []
    for _ in range(rng.randint(n, 3 * n)):
        u, v = rng.sample(range(n), 2)
        edges.append([u, v, rng.randint(0, 9)])
    return (n, edges, rng.randrange(n), rng.randrange(n))


TASKS = [
    {
        "tier": 1, "name": "lower_bound", "signature": "lower_bound(nums: list[int], target: int) -> int",
        "solve": solve_lower_bound, "gen": gen_lower_bound,
        "edges": [([], 5), ([3, 3, 3], 3), ([1, 2, 4], 9), ([1, 2, 4], -5), ([1, 2, 2, 2, 5], 2)],
        "spec": "nums is sorted ascending (duplicates allowed). Return the index of the first element >= target, "
                "or len(nums) if every element is smaller.",
        "hint": "Binary search on a half-open range [lo, hi) that starts as the whole list; on equality keep "
                "searching to the left so duplicates resolve to their first index.",
    },
    {
        "tier": 1, "name": "merge_intervals",
        "signature": "merge_intervals(intervals: list[list[int]]) -> list[list[int]]",
        "solve": solve_merge, "gen": gen_merge,
        "edges": [([],), ([[5, 5]],), ([[1, 2], [2, 3]],), ([[1, 10], [2, 3]],), ([[6, 8], [1, 3]],)],
        "spec": "Each interval is [start, end] with start <= end; the input is in any order. Merge intervals that "
                "overlap or touch (sharing an endpoint) and return the merged intervals sorted by start.",
        "hint": "Sort by start first; extend the last merged interval while the next start is at most its end, "
                "keeping the larger end (an interval may lie inside another).",
    },
    {
        "tier": 2, "name": "topo_order", "signature": "topo_order(n: int, edges: list[list[int]]) -> list[int]",
        "solve": solve_topo, "gen": gen_topo,
        "edges": [(1, []), (3, []), (2, [[0, 1], [1, 0]]), (4, [[3, 0], [2, 0], [1, 3]]), (3, [[0, 1], [0, 1]])],
        "spec": "Nodes are 0..n-1 and each edge [u, v] means u must come before v. Return the topological order "
                "that always takes the smallest-numbered node whose predecessors are all placed; return [] if the "
                "graph has a cycle. Edges may repeat.",
        "hint": "Kahn's algorithm: count incoming edges (repeated edges count twice), repeatedly take the smallest "
                "node with count zero, and report a cycle when not every node was placed.",
    },
    {
        "tier": 2, "name": "lis_length", "signature": "lis_length(nums: list[int]) -> int",
        "solve": solve_lis, "gen": gen_lis,
        "edges": [([],), ([7, 7, 7],), ([5, 4, 3],), ([1, 3, 2, 4],), ([2, 9, 3, 4, 1, 5],)],
        "spec": "Return the length of the longest strictly increasing subsequence of nums (not necessarily "
                "contiguous). An empty list gives 0.",
        "hint": "For each position keep the length of the best increasing subsequence ending there, extending only "
                "from strictly smaller earlier values; the answer is the best over all positions.",
    },
    {
        "tier": 3, "name": "edit_distance", "signature": "edit_distance(a: str, b: str) -> int",
        "solve": solve_edit, "gen": gen_edit,
        "edges": [("", ""), ("", "abc"), ("same", "same"), ("kitten", "sitting"), ("ab", "ba")],
        "spec": "Return the Levenshtein distance: the minimum number of single-character insertions, deletions and "
                "substitutions that turn a into b.",
        "hint": "Fill a table over prefixes: the first row and column are the prefix lengths, and each cell is "
                "the cheapest of delete, insert, or substitute (free when the characters are equal).",
    },
    {
        "tier": 3, "name": "shortest_path",
        "signature": "shortest_path(n: int, edges: list[list[int]], src: int, dst: int) -> int",
        "solve": solve_path, "gen": gen_path,
        "edges": [(3, [], 0, 2), (2, [[0, 1, 4]], 1, 1), (3, [[0, 1, 0], [1, 2, 0]], 0, 2),
                  (3, [[0, 1, 9], [0, 1, 2], [1, 2, 1]], 0, 2), (3, [[1, 0, 1]], 0, 1)],
        "spec": "Nodes are 0..n-1; each edge [u, v, w] is a DIRECTED edge from u to v with weight w >= 0 (parallel "
                "edges allowed). Return the total weight of the cheapest path from src to dst, 0 if src == dst, "
                "or -1 if dst cannot be reached.",
        "hint": "Dijkstra's algorithm: settle the cheapest unsettled reachable node each round and relax only its "
                "outgoing edges; zero weights are fine, and an unreached destination means minus one.",
    },
]

REFERENCES = {
    "lower_bound": """\
def lower_bound(nums, target):
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo
""",
    "merge_intervals": """\
def merge_intervals(intervals):
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out
""",
    "topo_order": """\
def topo_order(n, edges):
    indegree = [0] * n
    for u, v in edges:
        indegree[v] = indegree[v] + 1
    order = []
    ready = [i for i in range(n) if indegree[i] == 0]
    while ready:
        node = min(ready)
        ready.remove(node)
        order.append(node)
        for u, v in edges:
            if u == node:
                indegree[v] = indegree[v] - 1
                if indegree[v] == 0:
                    ready.append(v)
    return order if len(order) == n else []
""",
    "lis_length": """\
def lis_length(nums):
    best = [1] * len(nums)
    for i in range(len(nums)):
        for j in range(i):
            if nums[j] < nums[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best) if best else 0
""",
    "edit_distance": """\
def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(b)]
""",
    "shortest_path": """\
def shortest_path(n, edges, src, dst):
    dist = {src: 0}
    done = set()
    while True:
        todo = [v for v in dist if v not in done]
        if not todo:
            break
        node = min(todo, key=lambda v: dist[v])
        done.add(node)
        for u, v, w in edges:
            if u == node and (v not in dist or dist[node] + w < dist[v]):
                dist[v] = dist[node] + w
    return dist.get(dst, -1)
""",
}


def call_text(name, args):
    return name + "(" + ", ".join(repr(a) for a in args) + ")"


class Algorithms:
    def __init__(self, tier=2, hidden_tests=6):
        self.tier = tier
        self.hidden_tests = hidden_tests
        self.task = TASKS[0]
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.task = rng.choice([t for t in TASKS if t["tier"] == self.tier])
        self.turn = 0
        shown, seen = [], [repr(a) for a in self.task["edges"]]
        tries = 0
        while len(shown) < 2 and tries < 100:
            tries = tries + 1
            args = self.task["gen"](rng)
            if repr(args) not in seen:
                seen.append(repr(args))
                shown.append(args)
        hidden = list(self.task["edges"][: self.hidden_tests])
        while len(hidden) < self.hidden_tests and tries < 300:
            tries = tries + 1
            args = self.task["gen"](rng)
            if repr(args) not in seen:
                seen.append(repr(args))
                hidden.append(args)
        self.tests, self.labels, self.visible = [], [], []
        for i, args in enumerate(shown + hidden):
            call = call_text(self.task["name"], args)
            expected = self.task["solve"](args)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < len(shown):
                self.visible.append(test)
        return self._task_text(), {"function": self.task["name"], "tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef {self.task['signature']}:\n    \"\"\"{self.task['spec']}\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests (small inputs) check "
            f"more cases. Reply with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} "
            "turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.task["name"]
        code, error = parse_code(action)
        if error is None and name not in defined_names(code):
            error = f"your code does not define {name}() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return self.task["hint"]

    def reference_action(self):
        return "```python\n" + REFERENCES[self.task["name"]] + "```"
