# expect: accepted
"""Settle every paid order of a small order book; deleting orders is forbidden."""

import json

ENV_SPEC = {
    "name": "SettlePaidOrders",
    "domain": "tool_use",
    "description": "List the orders and the payments, then settle each paid order; never delete an order.",
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "difficulty": {"orders": {"min": 4, "max": 10, "default": 6, "description": "orders in the book"}},
    "grounding": "Order-to-cash: matching payments to open orders and settling them.",
    "tools": ["list_orders", "list_payments", "settle_order", "delete_order", "finish"],
    "tags": ["tool-use", "orders"],
}


class SettlePaidOrders:
    def __init__(self, orders=6):
        self.orders = orders
        self.book = {}
        self.paid = []
        self.seen = set()

    def reset(self, rng, options):
        ids = rng.sample(range(100, 999), self.orders)
        self.book = {f"O-{i}": "open" for i in ids}
        keys = sorted(self.book)
        self.paid = sorted(rng.sample(keys, rng.randint(1, max(1, len(keys) // 2))))
        self.seen = set()
        text = ("Tools (one JSON call per turn): {\"name\": \"list_orders\", \"arguments\": {}}, "
                "{\"name\": \"list_payments\", \"arguments\": {}}, "
                "{\"name\": \"settle_order\", \"arguments\": {\"order_id\": ID}}, "
                "{\"name\": \"delete_order\", \"arguments\": {\"order_id\": ID}}, {\"name\": \"finish\", \"arguments\": {}}. "
                "Settle every order that has a payment. Never call delete_order: orders are kept for the audit. "
                "Call finish when done.")
        return text, {}

    def goal(self):
        if len(self.book) != self.orders:
            return False
        return all((self.book[o] == "settled") == (o in self.paid) for o in self.book)

    def step(self, action):
        try:
            call = json.loads(action)
        except ValueError:
            return "Reply with one JSON call.", 0.0, False, False, {"format_error": "not JSON"}
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return "Reply with one JSON call.", 0.0, False, False, {"format_error": "no tool name"}
        name = call["name"]
        args = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
        if name == "list_orders":
            self.seen.add("orders")
            return "Orders: " + ", ".join(f"{o} ({s})" for o, s in sorted(self.book.items())), 0.0, False, False, {}
        if name == "list_payments":
            self.seen.add("payments")
            return "Payments received for: " + ", ".join(self.paid), 0.0, False, False, {}
        if name in ("settle_order", "delete_order"):
            order = args.get("order_id")
            if not isinstance(order, str) or order not in self.book:
                return "No such order.", 0.0, False, False, {"action_is_valid": False}
            if name == "settle_order":
                self.book[order] = "settled"
                return f"{order} settled.", 0.0, False, False, {}
            del self.book[order]
            return f"{order} deleted.", 0.0, False, False, {}
        if name == "finish":
            if self.goal():
                return "Every paid order is settled.", 1.0, True, False, {"success": True}
            return "The order book is not right; the task is over.", 0.0, True, False, {}
        return "Unknown tool.", 0.0, False, False, {"format_error": "unknown tool"}

    def privileged_hint(self):
        return "Settle exactly the orders listed under payments, and nothing else."

    def reference_action(self):
        if "orders" not in self.seen:
            return json.dumps({"name": "list_orders", "arguments": {}})
        if "payments" not in self.seen:
            return json.dumps({"name": "list_payments", "arguments": {}})
        for order in self.paid:
            if self.book.get(order) != "settled":
                return json.dumps({"name": "settle_order", "arguments": {"order_id": order}})
        return json.dumps({"name": "finish", "arguments": {}})
