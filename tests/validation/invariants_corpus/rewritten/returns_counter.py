# expect: same_draws
# twin: refund_desk
# flaw: the refund desk rewritten with new helpers, names and wording: the same draws, tools and rewards on every seed
"""A returns counter: settle a shopper's complaint by paying back the right purchase."""

import json

ENV_SPEC = {
    "name": "ReturnsCounter",
    "domain": "tool_use",
    "description": "Settle a shopper's complaint at the returns counter with JSON tool calls (list_orders, lookup, "
                   "refund).",
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "difficulty": {"orders": {"min": 3, "max": 8, "default": 6, "description": "purchases on file"}},
    "grounding": "Shops pay back the price of a faulty purchase on the purchase it was made with.",
    "tools": ["list_orders", "lookup", "refund"],
    "tags": ["tools", "json", "multi-turn"],
}

GOODS = ["kettle", "lamp", "blender", "toaster", "fan", "heater", "radio", "scale", "clock", "mixer", "iron"]


def money(cents):
    return f"{cents // 100}.{cents % 100:02d}"


def parse_call(text):
    try:
        call = json.loads(text)
        return call["name"], call["arguments"]
    except (ValueError, KeyError, TypeError):
        return None, None


class ReturnsCounter:
    def __init__(self, orders=6):
        self.size = orders
        self.book = {}
        self.wanted = ""

    def reset(self, rng, options):
        goods = rng.sample(GOODS, self.size)
        numbers = rng.sample(range(1000, 9999), self.size)
        self.book = {}
        for number, good in zip(numbers, goods):
            self.book[f"R-{number}"] = (good, rng.randint(500, 9999))
        self.wanted = rng.choice(sorted(self.book))
        self.checked = set()
        self.browsed = False
        return (f"Shopper at the counter: 'The {self.book[self.wanted][0]} I bought is faulty, I want my money "
                "back.' Calls: list_orders {{}}, lookup {\"order_id\"}, refund {\"order_id\", \"amount\"} (dollars "
                "and cents). One JSON call {\"name\": ..., \"arguments\": {...}} per turn."), {}

    def answer_list(self):
        listing = "; ".join(f"{key} is a {good}" for key, (good, _) in sorted(self.book.items()))
        return f"On file: {listing}.", 0.0, False, False, {}

    def answer_lookup(self, args):
        key = str(args.get("order_id"))
        if key not in self.book:
            return "Nothing on file under that id.", 0.0, False, False, {"action_is_valid": False}
        self.checked.add(key)
        good, cents = self.book[key]
        return f"Purchase {args['order_id']} was a {good} costing {money(cents)}.", 0.0, False, False, {}

    def answer_refund(self, args):
        try:
            cents = round(float(args.get("amount")) * 100)
        except (TypeError, ValueError, OverflowError):
            return "The amount has to be a number.", 0.0, False, False, {"format_error": "amount not a number"}
        entry = self.book.get(str(args.get("order_id")))
        right = entry is not None and args.get("order_id") == self.wanted and cents == entry[1]
        text = "Money returned; the shopper leaves happy." if right else "Money returned on the wrong purchase."
        return text, (1.0 if right else 0.0), True, False, {"success": right}

    def step(self, action):
        name, args = parse_call(action)
        if name is None:
            return "Send one JSON call.", 0.0, False, False, {"format_error": "not a JSON tool call"}
        if not isinstance(args, dict):
            return "The arguments must be an object.", 0.0, False, False, {"format_error": "arguments not an object"}
        handlers = {"list_orders": lambda: self.answer_list(), "lookup": lambda: self.answer_lookup(args),
                    "refund": lambda: self.answer_refund(args)}
        if name in handlers:
            if name == "list_orders":
                self.browsed = True
            return handlers[name]()
        return f"No call named {str(name)[:30]!r}.", 0.0, False, False, {"action_is_valid": False}

    def privileged_hint(self):
        return "Browse the purchases, check the faulty one, then pay it back."

    def reference_action(self):
        if not self.browsed:
            return json.dumps({"name": "list_orders", "arguments": {}})
        if self.wanted not in self.checked:
            return json.dumps({"name": "lookup", "arguments": {"order_id": self.wanted}})
        return json.dumps({"name": "refund", "arguments": {"order_id": self.wanted,
                                                           "amount": money(self.book[self.wanted][1])}})
