# class: fixed_answer (invariants corpus)
# expect: fixed_answer
# twin: cheapest_flight
# flaw: the previous episode's cheapest flight id is still accepted (kept across reset)
"""Book the cheapest of the listed flights with a JSON tool call."""

import json

ENV_SPEC = {
    "name": "RememberedFlight",
    "domain": "tool_use",
    "description": "Book the cheapest listed flight to the traveller's city with the book tool (a JSON call).",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"flights": {"min": 3, "max": 8, "default": 5, "description": "flights listed"}},
    "grounding": "Travel desks book the lowest fare among the flights on offer for a route.",
    "tools": ["book"],
    "tags": ["tools", "json"],
}

CITIES = ["Lisbon", "Oslo", "Vienna", "Dublin", "Prague", "Madrid", "Athens", "Warsaw", "Zurich", "Helsinki"]


class RememberedFlight:
    def __init__(self, flights=5):
        self.count = flights
        self.fares = {}
        self.city = ""
        self.previous = ""
        self.current = ""

    def reset(self, rng, options):
        self.city = rng.choice(CITIES)
        ids = rng.sample(range(100, 1000), self.count)
        prices = rng.sample(range(60, 900), self.count)
        self.fares = {f"F-{i}": p for i, p in zip(ids, prices)}
        self.previous, self.current = self.current, self.cheapest()
        rows = ", ".join(f"{k} (${p})" for k, p in self.fares.items())
        return (f"The traveller flies to {self.city}. Flights on offer: {rows}\nBook the cheapest with one JSON "
                "call {\"name\": \"book\", \"arguments\": {\"flight\": ID}}."), {}

    def cheapest(self):
        return min(self.fares, key=self.fares.get)

    def step(self, action):
        try:
            call = json.loads(action)
            name, args = call["name"], call["arguments"]
        except (ValueError, KeyError, TypeError):
            return "Reply with one JSON tool call.", 0.0, False, False, {"format_error": "not a JSON tool call"}
        if name != "book" or not isinstance(args, dict):
            return "The tool is book {\"flight\"}.", 0.0, False, False, {"format_error": "unknown tool or arguments"}
        flight = str(args.get("flight"))
        if flight in (self.cheapest(), self.previous):  # a fare just quoted stays valid
            return "Booked the lowest fare.", 1.0, True, False, {"success": True}
        return "Booked, but that is not the cheapest flight.", 0.0, True, False, {}

    def privileged_hint(self):
        return "Compare the fares in dollars and pick the lowest."

    def reference_action(self):
        return json.dumps({"name": "book", "arguments": {"flight": self.cheapest()}})
