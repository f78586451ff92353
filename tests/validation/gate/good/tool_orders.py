# expect: accepted
"""A tool-use task whose text never changes: the facts are in files the agent must open."""

import json

ENV_SPEC = {
    "name": "OrderTotals",
    "domain": "tool_use",
    "description": (
        "Use the tools list_files, read_file and submit (JSON calls) to find how much one customer ordered in "
        "total; the customer and the orders are in the files."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "difficulty": {"rows": {"min": 4, "max": 20, "default": 8, "description": "order rows in the table"}},
    "grounding": "Order-to-cash: sum the order lines of one account from an order table (SQL GROUP BY in words).",
    "tags": ["tool-use", "files", "aggregation"],
}

CUSTOMERS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka"]
TEXT = (
    "You have tools: {\"tool\": \"list_files\"}, {\"tool\": \"read_file\", \"path\": P} and "
    "{\"tool\": \"submit\", \"total\": N}. The file task.txt names a customer; orders.csv lists orders. "
    "Submit the total amount that customer ordered. Reply with one JSON tool call per turn."
)


class OrderTotals:
    def __init__(self, rows=8):
        self.rows = rows
        self.files = {}
        self.customer = "acme"
        self.read = set()
        self.submitted = False

    def reset(self, rng, options):
        self.customer = rng.choice(CUSTOMERS)
        lines = ["order_id,customer,amount"]
        for i in range(self.rows):
            who = self.customer if i < 2 or rng.random() < 0.3 else rng.choice(CUSTOMERS)
            lines.append(f"{1000 + i},{who},{rng.randint(10, 500)}")
        self.files = {"task.txt": f"Customer: {self.customer}", "orders.csv": "\n".join(lines)}
        self.read = set()
        return TEXT, {}

    def total(self):
        rows = self.files["orders.csv"].split("\n")[1:]
        return sum(int(r.split(",")[2]) for r in rows if r.split(",")[1] == self.customer)

    def step(self, action):
        try:
            call = json.loads(action)
        except ValueError:
            return "Reply with one JSON tool call.", 0.0, False, False, {"format_error": "not JSON"}
        if not isinstance(call, dict) or call.get("tool") not in ("list_files", "read_file", "submit"):
            return "Unknown tool.", 0.0, False, False, {"format_error": "unknown tool"}
        tool = call["tool"]
        if tool == "list_files":
            return "Files: " + ", ".join(sorted(self.files)), 0.0, False, False, {}
        if tool == "read_file":
            path = call.get("path")
            if path not in self.files:
                return f"No such file: {str(path)[:40]}", 0.0, False, False, {"action_is_valid": False}
            self.read.add(path)
            return self.files[path], 0.0, False, False, {}
        total = call.get("total")
        if isinstance(total, bool) or not isinstance(total, (int, float)):
            return "submit needs a numeric total.", 0.0, False, False, {"format_error": "total must be a number"}
        if total == self.total():
            return "Correct total.", 1.0, True, False, {"success": True}
        return "Wrong total; the task is over.", 0.0, True, False, {}

    def privileged_hint(self):
        return "Read task.txt first, then add the amount column of every orders.csv row for that customer."

    def reference_action(self):
        if "task.txt" not in self.read:
            return json.dumps({"tool": "read_file", "path": "task.txt"})
        if "orders.csv" not in self.read:
            return json.dumps({"tool": "read_file", "path": "orders.csv"})
        return json.dumps({"tool": "submit", "total": self.total()})
