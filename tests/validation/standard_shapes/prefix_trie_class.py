# shape: small class to implement (multiset trie with count_prefix, remove -> bool, longest_common_prefix, len) ...
"""Implement a small class: a multiset trie with prefix counting; hidden operation scripts drawn by seed."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "PrefixTrieCounter",
    "domain": "code",
    "description": (
        "Implement class PrefixTrie (insert, remove, count, count_prefix, longest_common_prefix) with multiset "
        "semantics. Hidden tests replay seed-drawn operation scripts and compare every return value; feedback after "
        "each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "scripts": {"min": 3, "max": 10, "default": 6, "description": "hidden operation scripts"},
        "ops": {"min": 6, "max": 24, "default": 12, "description": "operations per hidden script"},
    },
    "grounding": (
        "The trie (prefix tree) of autocomplete and IP routing tables: each node keeps how many stored words pass "
        "through it, so prefix counts are O(len(prefix)); removal decrements the counts along the path."
    ),
    "tags": ["code", "class", "data-structure", "trie", "multi-turn"],
}

SPEC_TEXT = (
    "Implement class PrefixTrie storing a MULTISET of lowercase words (the same word may be inserted several "
    "times):\n"
    "- insert(word) -> None: add one copy of word (the empty string is a valid word).\n"
    "- remove(word) -> bool: remove one copy; return True if a copy was present, else False (nothing changes).\n"
    "- count(word) -> int: copies of exactly word.\n"
    "- count_prefix(prefix) -> int: copies of stored words that start with prefix (count_prefix('') is the total).\n"
    "- longest_common_prefix() -> str: the longest string that is a prefix of every stored copy; '' when empty.\n"
    "- len(trie) -> int: total copies stored.\n"
)

SOLUTION = '''class PrefixTrie:
    def __init__(self):
        self.root = {"kids": {}, "pass": 0, "end": 0}

    def _find(self, text):
        node = self.root
        for ch in text:
            node = node["kids"].get(ch)
            if node is None:
                return None
        return node

    def insert(self, word):
        node = self.root
        node["pass"] += 1
        for ch in word:
            node = node["kids"].setdefault(ch, {"kids": {}, "pass": 0, "end": 0})
            node["pass"] += 1
        node["end"] += 1

    def remove(self, word):
        node = self._find(word)
        if node is None or node["end"] == 0:
            return False
        node = self.root
        node["pass"] -= 1
        for ch in word:
            child = node["kids"][ch]
            child["pass"] -= 1
            if child["pass"] == 0:
                del node["kids"][ch]
                return True
            node = child
        node["end"] -= 1
        return True

    def count(self, word):
        node = self._find(word)
        return 0 if node is None else node["end"]

    def count_prefix(self, prefix):
        node = self._find(prefix)
        return 0 if node is None else node["pass"]

    def longest_common_prefix(self):
        node = self.root
        out = []
        while node["pass"] > 0 and node["end"] == 0 and len(node["kids"]) == 1:
            ch, child = next(iter(node["kids"].items()))
            out.append(ch)
            node = child
        return "".join(out)

    def __len__(self):
        return self.root["pass"]
'''

STEMS = ["car", "cart", "care", "cat", "ca", "do", "dog", "dot", "d", "", "carton", "cattle"]


def model_apply(bag, op, arg):
    if op == "insert":
        bag[arg] = bag.get(arg, 0) + 1
        return None
    if op == "remove":
        if bag.get(arg, 0) == 0:
            return False
        bag[arg] = bag[arg] - 1
        if bag[arg] == 0:
            del bag[arg]
        return True
    if op == "count":
        return bag.get(arg, 0)
    if op == "count_prefix":
        return sum(n for w, n in bag.items() if w.startswith(arg))
    if op == "len":
        return sum(bag.values())
    words = list(bag)
    if not words:
        return ""
    lcp = words[0]
    for w in words[1:]:
        i = 0
        while i < len(lcp) and i < len(w) and lcp[i] == w[i]:
            i = i + 1
        lcp = lcp[:i]
    return lcp


def call_text(op, arg):
    if op == "len":
        return "len(t)"
    if op == "longest_common_prefix":
        return "t.longest_common_prefix()"
    return f"t.{op}({arg!r})"


class PrefixTrieCounter:
    def __init__(self, scripts=6, ops=12):
        self.n_scripts = scripts
        self.n_ops = ops
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _script(self, rng, pool, n_ops):
        bag = {}
        lines = ["t = PrefixTrie()"]
        shown = []
        for _ in range(n_ops):
            r = rng.random()
            if r < 0.4:
                op, arg = "insert", rng.choice(pool)
            elif r < 0.55:
                op, arg = "remove", rng.choice(pool)
            elif r < 0.67:
                op, arg = "count", rng.choice(pool)
            elif r < 0.85:
                op, arg = "count_prefix", rng.choice(pool + ["c", "ca", "d", "x", ""])
            elif r < 0.93:
                op, arg = "longest_common_prefix", ""
            else:
                op, arg = "len", ""
            want = model_apply(bag, op, arg)
            call = call_text(op, arg)
            if op == "insert":
                lines.append(call)
                shown.append(call)
            else:
                lines.append(f"assert {call} == {want!r}, {call!r} + ' returned ' + repr({call})")
                shown.append(f"{call} -> {want!r}")
        return "\n".join(lines), "; ".join(shown)

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        example = (
            "t = PrefixTrie()\nt.insert('car')\nt.insert('cart')\nt.insert('car')\n"
            "assert t.count('car') == 2\nassert t.count_prefix('car') == 3\nassert t.remove('ca') == False\n"
            "assert t.longest_common_prefix() == 'car'\nassert len(t) == 3"
        )
        self.tests.append(example)
        self.labels.append("example script from the task text")
        self.visible.append(example)
        for _ in range(self.n_scripts):
            pool = rng.sample(STEMS, rng.randint(3, 6))
            script, shown = self._script(rng, pool, self.n_ops)
            self.tests.append(script)
            self.labels.append(shown)
        return self._task(), {"hidden_scripts": self.n_scripts}

    def _task(self):
        return (
            f"{SPEC_TEXT}\nExample:\n  t = PrefixTrie(); t.insert('car'); t.insert('cart'); t.insert('car')\n"
            "  t.count('car') == 2; t.count_prefix('car') == 3; t.remove('ca') == False; "
            "t.longest_common_prefix() == 'car'; len(t) == 3\n\n"
            f"Reply with the class in a ```python block. {self.n_scripts} hidden scripts of {self.n_ops} operations "
            f"each check it. You have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "PrefixTrie" not in defined_names(code):
            error = "your code does not define class PrefixTrie at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} scripts pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        first_hidden = ""
        for i, item in enumerate(result["results"]):
            if i > 0 and not item["ok"] and result["error"] is None:
                first_hidden = f"\nA hidden script failed with: {(item['error'] or 'assertion failed')[:200]}"
                break
        return f"{feedback}{first_hidden}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "Keep two counters per node: how many stored copies pass through it and how many end at it. remove() "
            "must first check that a copy of the exact word exists (a stored longer word is not enough). The longest "
            "common prefix stops at a node where some copy ends or where the path branches, and '' is a word too."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
