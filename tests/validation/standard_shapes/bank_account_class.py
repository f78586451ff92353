# shape: a class to implement (a bank account with refusals) from a fixed specification; hidden call sequences vary by seed
"""Implement BankAccount with deposit, withdraw and balance, refusing bad amounts with ValueError; the hidden tests
replay call sequences drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "BankAccountSpec",
    "domain": "code",
    "description": "Implement a bank account class that refuses overdrafts and non-positive amounts; hidden call sequences check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"operations": {"min": 4, "max": 24, "default": 10, "description": "calls per hidden sequence"}},
    "grounding": "A deposit account without overdraft: a withdrawal larger than the balance is refused and changes nothing.",
    "tags": ["code", "class", "bank"],
}

SPEC = ('class BankAccount:\n'
        '    __init__(opening: int = 0)     # opening balance in cents, >= 0\n'
        '    deposit(amount: int) -> int    # add; return the new balance; ValueError if amount <= 0\n'
        '    withdraw(amount: int) -> int   # take out; return the new balance; ValueError if amount <= 0 or\n'
        '                                   # above the balance (the balance is then unchanged)\n'
        '    balance() -> int               # the balance in cents')

REFERENCE = """\
class BankAccount:
    def __init__(self, opening=0):
        self.cents = opening

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError('amount must be positive')
        self.cents += amount
        return self.cents

    def withdraw(self, amount):
        if amount <= 0 or amount > self.cents:
            raise ValueError('refused')
        self.cents -= amount
        return self.cents

    def balance(self):
        return self.cents
"""


def sequence(rng, operations):
    opening = rng.choice([0, 500, 1200])
    cents = opening
    ops, out = [], []
    for _ in range(operations):
        op = rng.choice(["deposit", "withdraw", "withdraw", "balance"])
        if op == "balance":
            ops.append("balance()")
            out.append(cents)
            continue
        amount = rng.choice([0, -50, rng.randint(1, 900), rng.randint(1, 900)])
        ops.append(f"{op}({amount})")
        if amount <= 0 or (op == "withdraw" and amount > cents):
            out.append("ValueError")
        else:
            cents = cents + amount if op == "deposit" else cents - amount
            out.append(cents)
    return f"BankAccount({opening})", ops, out


def program(ops, make):
    lines = ["def run():", f"    obj = {make}", "    out = []"]
    for call in ops:
        lines += ["    try:", f"        out.append(obj.{call})"]
        for error in ("IndexError", "KeyError", "ValueError"):
            lines += [f"    except {error}:", f"        out.append({error!r})"]
    lines.append("    return out")
    return "\n".join(lines)


def cases(rng, operations):
    found = []
    for _ in range(6):
        make, ops, expected = sequence(rng, operations)
        found.append((program(ops, make) + "\n" + equality_test("run()", expected),
                      f"{make}; " + " ; ".join(ops) + f" -> {expected!r}"))
    return found


class BankAccountSpec:
    def __init__(self, operations=10):
        self.operations = operations
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.operations):
            self.tests.append(test)
            self.labels.append(label)
        examples = "\n".join("  " + label for label in self.labels[:2])
        text = (f"Implement this Python class:\n\n{SPEC}\n\nExamples:\n{examples}\n\n{len(self.tests) - 2} more "
                "tests are hidden. Reply with the complete class in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "BankAccount" not in defined_names(code):
            error = "your code does not define BankAccount at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Check the amount before touching the balance, so a refused call changes nothing."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
