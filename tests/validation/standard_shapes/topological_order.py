# shape: any valid output is accepted (a topological order); fixed specification, hidden graphs vary by seed
"""Implement topo_order(n, edges): any order that puts every edge's source before its target is right, so the
hidden tests check validity, not one expected list."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "AnyTopologicalOrder",
    "domain": "code",
    "description": "Implement a topological sort of a directed acyclic graph; any valid order passes the hidden "
                   "tests.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"nodes": {"min": 3, "max": 12, "default": 8, "description": "nodes per hidden graph"}},
    "grounding": "Kahn's algorithm: repeatedly output a node with no incoming edges and remove its edges.",
    "tags": ["code", "graphs", "any-valid-output"],
}

SPEC = ("def topo_order(n: int, edges: list[tuple[int, int]]) -> list[int]:\n"
        "    \"\"\"Nodes are 0..n-1; (a, b) means a must come before b. The graph has no cycle. Return a list of\n"
        "    all n nodes, each once, in which every edge's a comes before its b. Any such order is correct.\"\"\"")

REFERENCE = """\
def topo_order(n, edges):
    indegree = [0] * n
    after = [[] for _ in range(n)]
    for a, b in edges:
        after[a].append(b)
        indegree[b] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    order = []
    while ready:
        v = ready.pop()
        order.append(v)
        for w in after[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return order
"""


def validity_test(n, edges):
    return (f"got = topo_order({n}, {edges!r})\n"
            f"assert sorted(got) == list(range({n})), 'not every node once: ' + repr(got)\n"
            "where = {v: i for i, v in enumerate(got)}\n"
            f"for a, b in {edges!r}:\n"
            "    assert where[a] < where[b], f'{a} must come before {b}: ' + repr(got)")


class AnyTopologicalOrder:
    def __init__(self, nodes=8):
        self.nodes = nodes
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [validity_test(1, [])], ["topo_order(1, [])"]
        for _ in range(6):
            n = rng.randint(3, self.nodes)
            rank = list(range(n))
            rng.shuffle(rank)
            edges = []
            for _ in range(rng.randint(n - 1, 2 * n)):
                i, j = rng.randint(0, n - 1), rng.randint(0, n - 1)
                if i != j:
                    a, b = (rank[i], rank[j]) if i < j else (rank[j], rank[i])
                    if (a, b) not in edges:
                        edges.append((a, b))
            self.tests.append(validity_test(n, edges))
            self.labels.append(f"topo_order({n}, {edges!r})")
        text = (f"Implement this Python function:\n\n{SPEC}\n\nFor example {self.labels[1]} must return a valid order "
                "of its nodes. 6 more graphs are hidden. Reply with the complete function in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "topo_order" not in defined_names(code):
            error = "your code does not define topo_order() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return "All graphs pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[1:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Count incoming edges; keep a list of nodes whose count is zero and output them one by one."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
