# shape: missing required parameter: the new postcode is on no record, so ask_user, then create every shipment ...
"""Custom tools with a missing required parameter: create shipments for customer orders; one request lacks the
delivery postcode (not on file), so the right move is to ask the user, then proceed."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools

ENV_SPEC = {
    "name": "AskUserShipment",
    "domain": "tool_use",
    "description": "Create parcel shipments for several orders. Addresses come from the customer records, but one "
                   "order ships to a new address whose postcode is on no record: the agent must ask the user for "
                   "it (ask_user) instead of guessing, then book every shipment. Scored by the shipments created.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "orders": {"min": 2, "max": 6, "default": 3,
                   "description": "orders to ship; from 4 the heaviest parcel needs the 'freight' service"},
    },
    "tools": ["get_order", "get_customer", "ask_user", "create_shipment"],
    "grounding": "BFCL-style 'missing parameter' turns: a required argument the tools cannot supply must come "
                 "from the user; parcel carriers' weight limits decide the service level.",
    "tags": ["missing-parameter", "ask-user", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

NAMES = ["Ines Duarte", "Tom Becker", "Yara Saleh", "Liam O'Neill", "Mei Lin", "Kofi Mensah", "Sara Nilsson",
         "Arjun Rao"]
STREETS = ["Elm Row", "Quay Street", "Mill Lane", "Park Avenue", "Harbour Road", "Station Street", "Kiln Close"]
SCHEMAS = [
    {"type": "function", "function": {
        "name": "get_order", "description": "Look up an order: customer id, items and parcel weight (kg).",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string", "maxLength": 20}},
                       "required": ["order_id"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "get_customer", "description": "Look up a customer's name and address on file.",
        "parameters": {"type": "object", "properties": {"customer_id": {"type": "string", "maxLength": 20}},
                       "required": ["customer_id"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "ask_user", "description": "Ask the user (the shop owner) a question; returns their reply.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string", "maxLength": 500}},
                       "required": ["question"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "create_shipment",
        "description": "Book a shipment. service: 'standard' (parcels up to 20 kg) or 'freight' (over 20 kg). "
                       "An order can be shipped once.",
        "parameters": {"type": "object", "properties": {
            "order_id": {"type": "string", "maxLength": 20},
            "recipient": {"type": "string", "maxLength": 60},
            "street": {"type": "string", "maxLength": 80},
            "postcode": {"type": "string", "maxLength": 12},
            "service": {"type": "string", "enum": ["standard", "freight"]}},
            "required": ["order_id", "recipient", "street", "postcode", "service"],
            "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "finish",
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                       "required": [], "additionalProperties": False}}},
]


def _pc(rng):
    return f"{rng.choice('BDGKLMNRST')}{rng.choice('ABEHLNRW')}{rng.randint(1, 19)} {rng.randint(1, 9)}" \
           f"{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"


class AskUserShipment:
    def __init__(self, orders=3):
        self.orders = orders
        self._clear()

    def _clear(self):
        self.order_rows = {}
        self.customers = {}
        self.target = {}
        self.shipments = {}
        self.asked = False
        self.new_order = ""
        self.new_street = ""
        self.new_postcode = ""
        self.turn = 0
        self.done = False
        self.read = []

    def reset(self, rng, options):
        self._clear()
        n = self.orders
        names = rng.sample(NAMES, n)
        order_ids = [f"SO-{rng.randint(10000, 99999)}{i}" for i in range(n)]
        heavy = rng.randrange(n) if n >= 4 else -1
        for i, oid in enumerate(order_ids):
            cid = f"C{rng.randint(100, 999)}{i}"
            street = f"{rng.randint(1, 120)} {rng.choice(STREETS)}"
            self.customers[cid] = {"name": names[i], "street": street, "postcode": _pc(rng)}
            weight = round(rng.randint(20 if i == heavy else 5, 350 if i == heavy else 195) / 10, 1)
            if i == heavy:
                weight = round(20.5 + rng.randint(0, 150) / 10, 1)
            self.order_rows[oid] = {"order_id": oid, "customer_id": cid, "weight_kg": weight,
                                    "items": rng.randint(1, 6)}
            self.target[oid] = {"recipient": names[i], "street": street, "postcode": self.customers[cid]["postcode"],
                                "service": "freight" if weight > 20 else "standard"}
        k = rng.randrange(n)
        self.new_order = order_ids[k]
        self.new_street = f"{rng.randint(1, 120)} {rng.choice(STREETS)}"
        while self.new_street == self.target[self.new_order]["street"]:
            self.new_street = f"{rng.randint(1, 120)} {rng.choice(STREETS)}"
        self.new_postcode = _pc(rng)
        self.target[self.new_order]["street"] = self.new_street
        self.target[self.new_order]["postcode"] = self.new_postcode
        task = (f"Ship these orders: {', '.join(order_ids)}. Send each to the customer named on the order, at the "
                f"address on their customer record, with the 'standard' service unless the parcel is over 20 kg "
                f"('freight'). Exception: the customer of {self.new_order} has moved; ship that one to "
                f"{self.new_street} (the new postcode is not on record). Copy names, streets and postcodes exactly. "
                f"Never guess a value you cannot look up: ask the user.")
        obs = (f"{task}\n\nTools (one JSON schema per line):\n{render_tools(SCHEMAS)}\n\n"
               f'Call a tool by replying with JSON: {{"name": "<tool>", "arguments": {{...}}}}. A JSON list runs '
               f'several calls in order. When the task is complete, call {{"name": "finish", "arguments": {{}}}}. '
               f"You have {ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(SCHEMAS))}

    def _call(self, name, args):
        if name == "get_order":
            row = self.order_rows.get(args["order_id"])
            if row is None:
                return {"error": f"no order {args['order_id']!r}"}
            self.read.append(("o", args["order_id"]))
            return dict(row)
        if name == "get_customer":
            row = self.customers.get(args["customer_id"])
            if row is None:
                return {"error": f"no customer {args['customer_id']!r}"}
            self.read.append(("c", args["customer_id"]))
            return dict(row)
        if name == "ask_user":
            q = args["question"].lower()
            if "postcode" in q or "post code" in q or "zip" in q or "postal" in q:
                self.asked = True
                return {"reply": f"The new postcode for {self.new_order} is {self.new_postcode}."}
            return {"reply": "I can only help with details that are not on record, such as the new postcode."}
        if name == "create_shipment":
            oid = args["order_id"]
            if oid not in self.order_rows:
                return {"error": f"no order {oid!r}"}
            if oid in self.shipments:
                return {"error": f"order {oid} is already shipped"}
            if args["service"] == "standard" and self.order_rows[oid]["weight_kg"] > 20:
                return {"error": "parcel is over 20 kg: standard service refused"}
            self.shipments[oid] = {"recipient": args["recipient"], "street": args["street"],
                                   "postcode": args["postcode"], "service": args["service"]}
            return {"shipment": f"SHP-{oid}", "booked": True}
        return {"error": f"unknown tool {name!r}"}

    def step(self, action):
        if self.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        self.turn = self.turn + 1
        parsed = parse_tool_calls(action if isinstance(action, str) else "", SCHEMAS)
        info = {"success": False, "format_error": parsed["error"], "tool_calls": len(parsed["calls"])}
        if parsed["error"] is not None:
            obs = (f"Format error: {parsed['error']}\nReply with one tool call as JSON, "
                   f'or {{"name": "finish", "arguments": {{}}}} when done.')
            return self._end(obs, info) if self.turn >= ENV_SPEC["max_turns"] else (obs, 0.0, False, False, info)
        lines = []
        for call in parsed["calls"]:
            result = self._call(call["name"], call["arguments"])
            lines.append(f"{call['name']} -> {json.dumps(result)}")
        obs = "\n".join(lines) or "No tool calls."
        if parsed["final"] is not None or self.turn >= ENV_SPEC["max_turns"]:
            return self._end(obs, info)
        return f"{obs}\n(turn {self.turn} of {ENV_SPEC['max_turns']})", 0.0, False, False, info

    def _end(self, obs, info):
        self.done = True
        ok = self.shipments == self.target
        info["success"] = ok
        verdict = ("Every order is shipped correctly: task complete." if ok else
                   "The shipments do not match the expected result.")
        return f"{obs}\n{verdict}", (1.0 if ok else 0.0), True, False, info

    def privileged_hint(self):
        return ("Milestones: get_order -> get_customer (repeat per order) -> ask_user -> create_shipment (repeat) -> "
                "finish. The weight decides the service; for the moved customer, keep the name from the record but "
                "use the new street and the postcode only the user knows.")

    def reference_action(self):
        for oid in sorted(self.order_rows):
            if ("o", oid) not in self.read:
                return json.dumps({"name": "get_order", "arguments": {"order_id": oid}})
            cid = self.order_rows[oid]["customer_id"]
            if ("c", cid) not in self.read:
                return json.dumps({"name": "get_customer", "arguments": {"customer_id": cid}})
        if not self.asked:
            return json.dumps({"name": "ask_user", "arguments": {
                "question": f"What is the new postcode for order {self.new_order}?"}})
        for oid in sorted(self.order_rows):
            if oid not in self.shipments:
                return json.dumps({"name": "create_shipment", "arguments": dict(self.target[oid], order_id=oid)})
        return json.dumps({"name": "finish", "arguments": {}})
