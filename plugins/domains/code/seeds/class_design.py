"""Implement a small class with methods; hidden scenarios (sequences of method calls) check its behaviour."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "ClassDesign",
    "domain": "code",
    "description": (
        "Implement a small Python class (bank account, min-stack, LRU cache or inventory) from a method-by-method "
        "specification. Scenarios of method calls, some hidden, run in the sandbox and report the first wrong call."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "methods": {"min": 2, "max": 4, "default": 3, "description": "number of methods to implement"},
        "scenarios": {"min": 2, "max": 8, "default": 4, "description": "hidden call scenarios"},
    },
    "grounding": (
        "Abstract data types from introductory programming courses: an account with validated deposits and "
        "withdrawals, a stack with constant-time minimum, a least-recently-used cache, a stock inventory."
    ),
    "tags": ["code", "classes", "object-oriented", "multi-turn"],
}

VALUE_ERROR = "raises ValueError"
INDEX_ERROR = "raises IndexError"

CLASSES = [
    {
        "name": "BankAccount", "var": "acct", "ctor": "opening balance (int)",
        "methods": [
            ["balance", "balance() -> int: the current balance"],
            ["deposit", "deposit(amount) -> int: add amount and return the new balance; amount <= 0 raises "
                        "ValueError and changes nothing"],
            ["withdraw", "withdraw(amount) -> int: subtract amount and return the new balance; amount <= 0 or "
                         "more than the balance raises ValueError and changes nothing"],
            ["history", "history() -> list: the successful operations, oldest first, as tuples ('deposit', "
                        "amount) or ('withdraw', amount)"],
        ],
        "hint": "Validate before changing any state so a refused operation leaves the balance and the history "
                "untouched; return copies, not your internal list.",
        "reference": """\
class BankAccount:
    def __init__(self, opening):
        self.amount = opening
        self.log = []

    def balance(self):
        return self.amount

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError('deposit must be positive')
        self.amount = self.amount + amount
        self.log.append(('deposit', amount))
        return self.amount

    def withdraw(self, amount):
        if amount <= 0 or amount > self.amount:
            raise ValueError('invalid withdrawal')
        self.amount = self.amount - amount
        self.log.append(('withdraw', amount))
        return self.amount

    def history(self):
        return list(self.log)
""",
    },
    {
        "name": "MinStack", "var": "stack", "ctor": "no arguments",
        "methods": [
            ["push", "push(x) -> None: put x on top"],
            ["size", "size() -> int: number of items"],
            ["pop", "pop() -> the top item, removing it; raises IndexError when empty"],
            ["get_min", "get_min() -> the smallest item currently on the stack; raises IndexError when empty"],
        ],
        "hint": "Keep a second stack of running minimums pushed and popped together with the items, and check for "
                "emptiness before reading.",
        "reference": """\
class MinStack:
    def __init__(self):
        self.items = []
        self.mins = []

    def push(self, x):
        self.items.append(x)
        self.mins.append(x if not self.mins or x < self.mins[-1] else self.mins[-1])

    def size(self):
        return len(self.items)

    def pop(self):
        if not self.items:
            raise IndexError('pop from empty stack')
        self.mins.pop()
        return self.items.pop()

    def get_min(self):
        if not self.mins:
            raise IndexError('empty stack')
        return self.mins[-1]
""",
    },
    {
        "name": "LRUCache", "var": "cache", "ctor": "capacity (int >= 1)",
        "methods": [
            ["put", "put(key, value) -> None: store value; if key is new and the cache is over capacity, evict the "
                    "least recently used key (both put and a successful get count as a use)"],
            ["get", "get(key) -> the stored value (marking key as most recently used), or -1 if absent"],
            ["size", "size() -> int: number of keys stored"],
            ["keys", "keys() -> list: the stored keys from least to most recently used"],
        ],
        "hint": "Keep the keys in recency order and move a key to the most-recent end on every put and every "
                "successful get; evict from the other end only when a new key overflows.",
        "reference": """\
class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.order = []
        self.data = {}

    def touch(self, key):
        if key in self.order:
            self.order.remove(key)
        self.order.append(key)

    def put(self, key, value):
        self.data[key] = value
        self.touch(key)
        if len(self.order) > self.capacity:
            oldest = self.order.pop(0)
            del self.data[oldest]

    def get(self, key):
        if key not in self.data:
            return -1
        self.touch(key)
        return self.data[key]

    def size(self):
        return len(self.order)

    def keys(self):
        return list(self.order)
""",
    },
    {
        "name": "Inventory", "var": "inv", "ctor": "no arguments",
        "methods": [
            ["add", "add(item, qty) -> int: add qty units of item and return its new count; qty <= 0 raises "
                    "ValueError"],
            ["count", "count(item) -> int: units of item in stock (0 for unknown items)"],
            ["remove", "remove(item, qty) -> int: take qty units away and return the new count; qty <= 0 or more "
                       "than in stock raises ValueError and changes nothing"],
            ["items", "items() -> list: (item, qty) tuples for items with qty > 0, sorted by item name"],
        ],
        "hint": "Unknown items count as zero; check the quantity before changing stock, and leave items that drop "
                "to zero out of the listing.",
        "reference": """\
class Inventory:
    def __init__(self):
        self.stock = {}

    def add(self, item, qty):
        if qty <= 0:
            raise ValueError('qty must be positive')
        self.stock[item] = self.stock.get(item, 0) + qty
        return self.stock[item]

    def count(self, item):
        return self.stock.get(item, 0)

    def remove(self, item, qty):
        have = self.stock.get(item, 0)
        if qty <= 0 or qty > have:
            raise ValueError('cannot remove that many')
        self.stock[item] = have - qty
        return self.stock[item]

    def items(self):
        return sorted((k, v) for k, v in self.stock.items() if v > 0)
""",
    },
]


def simulate(spec_name, ctor, ops):
    """Run ops on a trusted model of the class; return the expected result of every call."""
    out = []
    if spec_name == "BankAccount":
        balance, log = ctor[0], []
        for name, args in ops:
            if name == "balance":
                out.append(balance)
            elif name == "history":
                out.append(list(log))
            elif name == "deposit":
                if args[0] <= 0:
                    out.append(VALUE_ERROR)
                else:
                    balance = balance + args[0]
                    log.append(("deposit", args[0]))
                    out.append(balance)
            elif args[0] <= 0 or args[0] > balance:
                out.append(VALUE_ERROR)
            else:
                balance = balance - args[0]
                log.append(("withdraw", args[0]))
                out.append(balance)
    elif spec_name == "MinStack":
        items = []
        for name, args in ops:
            if name == "push":
                items.append(args[0])
                out.append(None)
            elif name == "size":
                out.append(len(items))
            elif not items:
                out.append(INDEX_ERROR)
            elif name == "pop":
                out.append(items.pop())
            else:
                out.append(min(items))
    elif spec_name == "LRUCache":
        capacity, order, data = ctor[0], [], {}
        for name, args in ops:
            if name == "put":
                data[args[0]] = args[1]
                if args[0] in order:
                    order.remove(args[0])
                order.append(args[0])
                if len(order) > capacity:
                    data.pop(order.pop(0))
                out.append(None)
            elif name == "get":
                if args[0] in data:
                    order.remove(args[0])
                    order.append(args[0])
                    out.append(data[args[0]])
                else:
                    out.append(-1)
            elif name == "size":
                out.append(len(order))
            else:
                out.append(list(order))
    else:
        stock = {}
        for name, args in ops:
            if name == "count":
                out.append(stock.get(args[0], 0))
            elif name == "items":
                out.append(sorted((k, v) for k, v in stock.items() if v > 0))
            elif name == "add":
                if args[1] <= 0:
                    out.append(VALUE_ERROR)
                else:
                    stock[args[0]] = stock.get(args[0], 0) + args[1]
                    out.append(stock[args[0]])
            else:
                have = stock.get(args[0], 0)
                if args[1] <= 0 or args[1] > have:
                    out.append(VALUE_ERROR)
                else:
                    stock[args[0]] = have - args[1]
                    out.append(stock[args[0]])
    return out


def random_op(spec_name, methods, rng):
    name = rng.choice(methods)
    if spec_name == "BankAccount":
        if name == "deposit":
            return [name, [rng.choice([-5, 0, 10, 25, 40, 100])]]
        if name == "withdraw":
            return [name, [rng.choice([0, 15, 30, 60, 500])]]
        return [name, []]
    if spec_name == "MinStack":
        if name == "push":
            return [name, [rng.randint(-5, 9)]]
        return [name, []]
    if spec_name == "LRUCache":
        if name == "put":
            return [name, [rng.choice("abcde"), rng.randint(1, 9)]]
        if name == "get":
            return [name, [rng.choice("abcde")]]
        return [name, []]
    if name in ("add", "remove"):
        return [name, [rng.choice(["apple", "fig", "pear"]), rng.choice([-1, 0, 1, 2, 3, 5])]]
    if name == "count":
        return [name, [rng.choice(["apple", "fig", "pear", "kiwi"])]]
    return [name, []]


def call_text(var, name, args):
    return f"{var}.{name}(" + ", ".join(repr(a) for a in args) + ")"


class ClassDesign:
    def __init__(self, methods=3, scenarios=4):
        self.methods = methods
        self.scenarios = scenarios
        self.spec = CLASSES[0]
        self.cases = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.driver = ""
        self.turn = 0

    def _ctor(self, rng):
        if self.spec["name"] == "BankAccount":
            return [rng.choice([0, 50, 100])]
        if self.spec["name"] == "LRUCache":
            return [rng.randint(2, 3)]
        return []

    def _driver(self, index, ctor, ops, expected):
        # spade_check_N records what each call returned and the test compares that list with the expected one:
        # the comparison is made by trusted code outside the agent's process (the agent's objects never take
        # part in it). spade_explain_N only words the failure message (the first wrong call).
        var = self.spec["var"]
        ctor_text = self.spec["name"] + "(" + ", ".join(repr(a) for a in ctor) + ")"
        lines = [f"def spade_check_{index}():", f"    {var} = {ctor_text}", "    got = []"]
        explain = [f"def spade_explain_{index}(got):"]
        done = [f"{var} = {ctor_text}"]
        for k, (op, want) in enumerate(zip(ops, expected)):
            call = call_text(var, op[0], op[1])
            lines = lines + [
                "    try:", f"        got.append({call})", "    except ValueError:", f"        got.append({VALUE_ERROR!r})",
                "    except IndexError:", f"        got.append({INDEX_ERROR!r})",
            ]
            explain = explain + [
                f"    if got[{k}] != {want!r}:",
                f"        return {('after ' + '; '.join(done) + ': ' + call + ' gave ')!r} + repr(got[{k}]) + "
                f"{(', expected ' + repr(want))!r}",
            ]
            done.append(call)
        lines.append("    return got")
        explain.append("    return 'ok'")
        lines = lines + [""] + explain
        transcript = [f"{var} = {ctor_text}"] + [
            call_text(var, op[0], op[1]) + " -> " + (want if isinstance(want, str) and want.startswith("raises")
                                                    else repr(want))
            for op, want in zip(ops, expected)
        ]
        return "\n".join(lines), "; ".join(transcript)

    def reset(self, rng, options):
        self.spec = rng.choice(CLASSES)
        self.turn = 0
        names = [m[0] for m in self.spec["methods"][: self.methods]]
        drivers = []
        self.tests, self.labels, self.visible = [], [], []
        for index in range(2 + self.scenarios):
            ctor = self._ctor(rng)
            ops = [random_op(self.spec["name"], names, rng) for _ in range(rng.randint(4, 8))]
            for name in names:  # every required method is called in every scenario
                if name not in [op[0] for op in ops]:
                    ops.append(random_op(self.spec["name"], [name], rng))
            expected = simulate(self.spec["name"], ctor, ops)
            driver, transcript = self._driver(index + 1, ctor, ops, expected)
            drivers.append(driver)
            test = (f"assert spade_check_{index + 1}() == {list(expected)!r}, "
                    f"spade_explain_{index + 1}(spade_check_{index + 1}())")
            self.tests.append(test)
            self.labels.append(f"scenario {index + 1}: {transcript}")
            if index < 2:
                self.visible.append(test)
        self.driver = "\n\n\n" + "\n\n\n".join(drivers) + "\n"
        return self._task_text(), {"class": self.spec["name"], "tests": len(self.tests)}

    def _task_text(self):
        methods = "\n".join("  - " + m[1] for m in self.spec["methods"][: self.methods])
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement the class {self.spec['name']} (constructor: {self.spec['ctor']}) with these methods:\n"
            f"{methods}\n\nExample scenarios (call -> result):\n{examples}\n\n"
            f"{len(self.tests) - len(self.visible)} hidden scenarios check more call sequences. Reply with the "
            f"complete class in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.spec["name"]
        code, error = parse_code(action)
        if error is None and name not in defined_names(code):
            error = f"your code does not define the class {name} at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code + self.driver, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} scenarios behave as specified.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels, 2)
        return f"{feedback}\nFix the class and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return self.spec["hint"]

    def reference_action(self):
        return "```python\n" + self.spec["reference"] + "```"
