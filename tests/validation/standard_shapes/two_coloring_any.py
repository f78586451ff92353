# shape: any-valid-output task: return any proper 2-colouring of a seeded graph (checked by a validity predicate) or None when an odd cycle exists.
"""Two-colour a graph: any valid colouring passes (checked by a predicate), None when the graph has an odd cycle."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "TwoColoringAnyValid",
    "domain": "code",
    "description": (
        "Implement two_color(n, edges): return any list of n colours (0 or 1) such that every edge joins two "
        "different colours, or None when no such colouring exists. Tests accept every valid colouring; graphs "
        "(several components, duplicate edges, self-loops, odd cycles) are drawn per seed."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 12, "default": 6, "description": "hidden graphs"},
        "vertices": {"min": 4, "max": 30, "default": 10, "description": "largest graph size"},
    },
    "grounding": (
        "Bipartite testing (Konig's theorem): a graph is 2-colourable exactly when it has no odd cycle; a BFS "
        "or DFS per connected component colours each new vertex opposite to its parent and finds a conflict "
        "edge when the graph is not bipartite. A self-loop is an odd cycle of length one."
    ),
    "tags": ["code", "graphs", "bfs", "any-valid-output", "hidden-tests"],
}

SPEC = (
    "Vertices are 0..n-1; edges is a list of (u, v) pairs (undirected; may repeat, may be a self-loop (v, v)). "
    "Return a list of n ints, each 0 or 1, such that colour[u] != colour[v] for every edge, or None when that is "
    "impossible. When several colourings exist, any valid one is accepted. Isolated vertices may get either colour."
)
HINT = ("Colour component by component: start an uncoloured vertex with 0, give each neighbour the opposite "
        "colour with a queue or stack, and return None as soon as an edge joins two equal colours (a self-loop "
        "always does). Do not stop after the first component.")
REFERENCE = """\
from collections import deque

def two_color(n, edges):
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    color = [None] * n
    for start in range(n):
        if color[start] is not None:
            continue
        color[start] = 0
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if color[v] is None:
                    color[v] = 1 - color[u]
                    queue.append(v)
                elif color[v] == color[u]:
                    return None
    return color
"""


def make_graph(rng, n, bipartite):
    side = [rng.randint(0, 1) for _ in range(n)]
    edges = []
    for _ in range(rng.randint(n // 2, n + 2)):
        u, v = rng.randrange(n), rng.randrange(n)
        if side[u] != side[v]:
            edges.append((u, v))
    if edges and rng.random() < 0.3:
        edges.append(rng.choice(edges)[::-1])
    if not bipartite:
        if rng.random() < 0.2:
            v = rng.randrange(n)
            edges.append((v, v))
        else:
            length = rng.choice([k for k in (3, 5, 7) if k <= n])
            cycle = rng.sample(range(n), length)
            edges.extend((cycle[i], cycle[(i + 1) % length]) for i in range(length))
    rng.shuffle(edges)
    return edges


def bipartite_check(n, edges):
    color = [None] * n
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    for start in range(n):
        if color[start] is None:
            color[start] = 0
            stack = [start]
            while stack:
                u = stack.pop()
                for v in adj[u]:
                    if color[v] is None:
                        color[v] = 1 - color[u]
                        stack.append(v)
                    elif color[v] == color[u]:
                        return False
    return True


class TwoColoringAnyValid:
    def __init__(self, hidden_tests=6, vertices=10):
        self.hidden_tests = hidden_tests
        self.vertices = vertices
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        wanted = [True, False] + [rng.random() < 0.6 for _ in range(self.hidden_tests)]
        wanted[2:4] = [True, False]
        for i, bipartite in enumerate(wanted):
            n = rng.randint(3, 6) if i < 2 else rng.randint(4, self.vertices)
            edges = make_graph(rng, n, bipartite)
            call = f"two_color({n}, {edges!r})"
            if bipartite_check(n, edges):
                test = (f"assert (lambda r: isinstance(r, list) and len(r) == {n} and all(c in (0, 1) for c in r) "
                        f"and all(r[a] != r[b] for a, b in {edges!r}))({call}), 'not a valid colouring: got ' + "
                        f"repr({call})")
                label = f"{call} -> any valid colouring"
            else:
                test = equality_test(call, None)
                label = f"{call} -> None"
            self.tests.append(test)
            self.labels.append(label)
            if i < 2:
                self.visible.append(test)
        return self.task_text(), {"function": "two_color", "tests": len(self.tests)}

    def task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef two_color(n: int, edges: list[tuple[int, int]]) -> "
            f"list[int] | None:\n    \"\"\"{SPEC}\"\"\"\n\nExamples:\n{examples}\n\n"
            f"{len(self.tests) - len(self.visible)} hidden graphs (up to {self.vertices} vertices) check more cases. "
            f"Reply with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        out_of_turns = left <= 0
        code, error = parse_code(action if isinstance(action, str) else "")
        if error is None and "two_color" not in defined_names(code):
            error = "your code does not define two_color() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self.task_text()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} graphs handled correctly.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again. Turns left: {left}.", 0.0, out_of_turns, False, info

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
