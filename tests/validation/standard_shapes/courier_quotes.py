# shape: custom domain API (the environment's own courier functions, described by JSON schemas) beside bundled tools (file system, ledger)
"""Courier API + file system + ledger: book each outgoing parcel with the cheapest carrier fast enough, and pay."""

import json

from spade_domains.tool_use.actions import milestones, parse_tool_calls, render_tools
from spade_tools.filesystem import FileSystem
from spade_tools.ledger import Ledger
from spade_tools.schema import validate
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "CourierQuoteBooking",
    "domain": "tool_use",
    "description": "A mailroom task against a custom courier API (list_carriers, get_quote, list_bookings, "
                   "book_shipment, cancel_booking) plus the bundled file system and ledger: quote every carrier "
                   "that serves each parcel's country, book the cheapest one that meets the parcel's deadline, and "
                   "pay the booked price from the postage account. Scored by bookings, balances and history.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "parcels": {"min": 2, "max": 5, "default": 3,
                    "description": "parcels in the manifest (more quotes, bookings and payments); from 3 one "
                                   "parcel is already booked and must be skipped, from 4 the cheapest quote of a "
                                   "parcel is too slow for its deadline"},
    },
    "tools": ["list_carriers", "get_quote", "list_bookings", "book_shipment", "cancel_booking", "pwd", "ls", "cd",
              "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep", "list_accounts", "balance",
              "deposit", "withdraw", "transfer", "history"],
    "grounding": "Shipping from an office mailroom: couriers quote a price and a transit time per parcel, "
                 "the cheapest service that still arrives in time is booked and postage is paid from a budget.",
    "tags": ["custom-api", "ledger", "filesystem", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}


def _fn(name, description, properties, required):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


CARRIER_ARG = {"type": "string", "minLength": 1, "maxLength": 40, "description": "carrier name"}
PARCEL_ARG = {"type": "string", "minLength": 1, "maxLength": 20, "description": "parcel id from the manifest"}
COURIER_TOOLS = [
    _fn("list_carriers", "List the courier companies and the destination countries each one serves.", {}, []),
    _fn("get_quote", "Quote one carrier for one manifest parcel: price in EUR and transit days.",
        {"carrier": CARRIER_ARG, "parcel_id": PARCEL_ARG}, ["carrier", "parcel_id"]),
    _fn("list_bookings", "List the current bookings (reference, parcel, carrier, price).", {}, []),
    _fn("book_shipment", "Book one parcel with one carrier at its quoted price; a parcel can be booked only once.",
        {"carrier": CARRIER_ARG, "parcel_id": PARCEL_ARG}, ["carrier", "parcel_id"]),
    _fn("cancel_booking", "Cancel a booking by its reference.",
        {"booking_ref": {"type": "string", "minLength": 1, "maxLength": 20}}, ["booking_ref"]),
]
FINISH_TOOL = _fn("finish", "End the episode once the task is complete.",
                  {"answer": {"type": "string", "maxLength": 2000}}, [])
CARRIERS = ["Albatross Post", "Kestrel Couriers", "Meridian Parcel", "Pronto Express", "Swiftwing"]
COUNTRIES = ["DE", "FR", "IT", "ES", "NL", "PL", "SE", "PT"]
OFFICES = ["Dublin", "Vienna", "Brno", "Tallinn", "Lille", "Basel"]


class CourierQuotes:
    def __init__(self, parcels=3):
        self.parcels = parcels
        self.office = ""
        self.carriers = {}
        self.manifest = []
        self.seed_bookings = []
        self.bookings = []
        self.next_ref = 1
        self.box = None
        self.live = {}
        self.schemas = []
        self.reference = []
        self.target = {}
        self.matched = 0
        self.turn = 0
        self.finished = False
        self.task = ""
        self.start_balance = 0.0

    # -- the custom courier API -----------------------------------------------------------------------------
    def _quote(self, carrier, parcel_id):
        if carrier not in self.carriers:
            return {"error": f"get_quote: unknown carrier '{carrier}' (see list_carriers)"}
        parcel = next((p for p in self.manifest if p["id"] == parcel_id), None)
        if parcel is None:
            return {"error": f"get_quote: no parcel '{parcel_id}' in the manifest"}
        tariff = self.carriers[carrier]
        if parcel["country"] not in tariff["serves"]:
            return {"error": f"get_quote: {carrier} does not deliver to {parcel['country']}"}
        cents = tariff["base"][parcel["country"]] + tariff["per_kg"] * parcel["grams"] // 1000
        return {"carrier": carrier, "parcel_id": parcel_id, "price": cents / 100,
                "transit_days": tariff["days"][parcel["country"]]}

    def _api(self, state, name, args):
        """Run one courier call on ``state`` (a bookings list and a counter); returns the JSON result."""
        if name == "list_carriers":
            return {"carriers": [{"name": c, "serves": sorted(t["serves"])} for c, t in sorted(self.carriers.items())]}
        if name == "list_bookings":
            return {"bookings": [dict(b) for b in state["bookings"]]}
        if name == "get_quote":
            return self._quote(args["carrier"], args["parcel_id"])
        if name == "book_shipment":
            quote = self._quote(args["carrier"], args["parcel_id"])
            if "error" in quote:
                return {"error": quote["error"].replace("get_quote", "book_shipment")}
            if any(b["parcel_id"] == args["parcel_id"] for b in state["bookings"]):
                return {"error": f"book_shipment: parcel {args['parcel_id']} is already booked"}
            ref = f"BK-{state['counter']}"
            state["counter"] = state["counter"] + 1
            booking = {"booking_ref": ref, "parcel_id": args["parcel_id"], "carrier": args["carrier"],
                       "price": quote["price"]}
            state["bookings"].append(booking)
            return {"booked": dict(booking)}
        if name == "cancel_booking":
            kept = [b for b in state["bookings"] if b["booking_ref"] != args["booking_ref"]]
            if len(kept) == len(state["bookings"]):
                return {"error": f"cancel_booking: no booking '{args['booking_ref']}'"}
            state["bookings"] = kept
            return {"cancelled": args["booking_ref"]}
        return {"error": f"unknown tool '{name}'"}

    def _fresh(self):
        manifest = "parcel_id,country,weight_g,deadline_days\n" + "\n".join(
            f"{p['id']},{p['country']},{p['grams']},{p['deadline']}" for p in self.manifest)
        box = Toolbox(FileSystem({"mailroom": {"outgoing.csv": manifest,
                                               "policy.txt": "Cheapest service that meets the deadline."}},
                                 cwd="/mailroom"),
                      Ledger({"postage": self.start_balance, "petty_cash": 80.0}))
        state = {"bookings": [dict(b) for b in self.seed_bookings], "counter": 500 + len(self.seed_bookings)}
        return box, state

    @staticmethod
    def _snapshot(box, state):
        bookings = sorted([b["parcel_id"], b["carrier"], b["price"]] for b in state["bookings"])
        return {"tools": box.snapshot(), "bookings": bookings}

    def _run(self, box, state, call):
        if call["name"] in box.names():
            return box.call(call["name"], call["arguments"])
        return self._api(state, call["name"], call["arguments"])

    # -- scenario -------------------------------------------------------------------------------------------
    def reset(self, rng, options):
        self.office = rng.choice(OFFICES)
        today = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        names = rng.sample(CARRIERS, 4)
        self.carriers = {}
        for c in names:
            serves = set(rng.sample(COUNTRIES, 5))
            self.carriers[c] = {"serves": serves, "per_kg": rng.randint(40, 260),
                                "base": {k: rng.randint(450, 2400) for k in sorted(serves)},
                                "days": {k: rng.randint(1, 6) for k in sorted(serves)}}
        self.manifest = []
        ids = rng.sample(range(100, 999), self.parcels)
        covered = [k for k in COUNTRIES if sum(k in t["serves"] for t in self.carriers.values()) >= 2]
        for i in range(self.parcels):
            self.manifest.append({"id": f"P{ids[i]}", "country": rng.choice(covered),
                                  "grams": rng.randint(200, 9000), "deadline": 0})
        self.seed_bookings = []
        if self.parcels >= 4:
            trap = self.manifest[1]
            quotes = [q for q in (self._quote(c, trap["id"]) for c in sorted(self.carriers)) if "error" not in q]
            cheapest = min(quotes, key=lambda q: (q["price"], q["transit_days"], q["carrier"]))
            others = [q["transit_days"] for q in quotes if q["carrier"] != cheapest["carrier"]]
            slow = max(cheapest["transit_days"], min(others) + 1)
            self.carriers[cheapest["carrier"]]["days"][trap["country"]] = slow
            trap["deadline"] = slow - 1
        for parcel in self.manifest:
            if parcel["deadline"]:
                continue
            days = [q["transit_days"] for q in (self._quote(c, parcel["id"]) for c in sorted(self.carriers))
                    if "error" not in q]
            parcel["deadline"] = rng.randint(max(days) - 1, max(days)) if len(set(days)) > 1 else max(days)
        if self.parcels >= 3:
            pick = self.manifest[-1]
            carrier = rng.choice(sorted(c for c, t in self.carriers.items() if pick["country"] in t["serves"]))
            self.seed_bookings.append({"booking_ref": "BK-499", "parcel_id": pick["id"], "carrier": carrier,
                                       "price": self._quote(carrier, pick["id"])["price"]})
        self.start_balance = float(rng.randint(400, 900))
        # reference run
        self.reference = [{"name": "cat", "arguments": {"file_name": "/mailroom/outgoing.csv"}},
                          {"name": "list_carriers", "arguments": {}},
                          {"name": "list_bookings", "arguments": {}}]
        booked = {b["parcel_id"] for b in self.seed_bookings}
        payments = []
        for parcel in self.manifest:
            if parcel["id"] in booked:
                continue
            quotes = []
            for c in sorted(self.carriers):
                if parcel["country"] in self.carriers[c]["serves"]:
                    self.reference.append({"name": "get_quote", "arguments": {"carrier": c, "parcel_id": parcel["id"]}})
                    quotes.append(self._quote(c, parcel["id"]))
            ok = [q for q in quotes if q["transit_days"] <= parcel["deadline"]]
            best = min(ok, key=lambda q: (q["price"], q["transit_days"], q["carrier"]))
            self.reference.append({"name": "book_shipment",
                                   "arguments": {"carrier": best["carrier"], "parcel_id": parcel["id"]}})
            payments.append({"name": "withdraw", "arguments": {"account": "postage", "amount": best["price"],
                                                               "memo": f"{parcel['id']} via {best['carrier']}"}})
        self.reference.extend(payments)
        self.schemas = [json.loads(json.dumps(s)) for s in COURIER_TOOLS]
        box, state = self._fresh()
        self.schemas = [*self.schemas, *box.schemas(), json.loads(json.dumps(FINISH_TOOL))]
        self.reference = [parse_tool_calls(json.dumps(call), self.schemas)["calls"][0] for call in self.reference]
        for call in self.reference:
            self._run(box, state, call)
        self.target = self._snapshot(box, state)
        self.box, self.live = self._fresh()
        self.matched = 0
        self.turn = 0
        self.finished = False
        self.task = (
            f"You run the mailroom of the {self.office} office. /mailroom/outgoing.csv lists the "
            f"{self.parcels} parcels of {today} "
            f"(id, destination country, weight in grams, deadline in days). For every parcel that is not booked "
            f"yet (see list_bookings), ask get_quote of every carrier that serves its country (list_carriers), "
            f"then book_shipment with the CHEAPEST carrier whose transit_days is at most the parcel's deadline "
            f"(on a price tie, fewer transit days, then the carrier name alphabetically). Pay each new booking "
            f"with one withdraw from ledger account 'postage' of exactly the booked price, memo "
            f"'<parcel_id> via <carrier>' (for example 'P123 via Swiftwing'). Leave existing bookings, other "
            f"accounts and files alone."
        )
        obs = (f"{self.task}\n\nTools (one JSON schema per line):\n{render_tools(self.schemas)}\n\nCall a tool "
               f"with JSON {{\"name\": \"<tool>\", \"arguments\": {{...}}}}; a JSON list runs several calls in "
               f"order. When done, call {{\"name\": \"finish\", \"arguments\": {{}}}}. You have "
               f"{ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(self.schemas))}

    # -- episode --------------------------------------------------------------------------------------------
    def step(self, action):
        if self.finished:
            return "The episode is over.", 0.0, True, False, {"success": False, "format_error": None}
        self.turn = self.turn + 1
        parsed = parse_tool_calls(action if isinstance(action, str) else "", self.schemas)
        info = {"success": False, "format_error": parsed["error"], "tool_calls": len(parsed["calls"])}
        lines = []
        if parsed["error"] is not None:
            lines.append(f"Format error: {parsed['error']}")
        for call in parsed["calls"]:
            problem = None
            spec = next((s for s in COURIER_TOOLS if s["function"]["name"] == call["name"]), None)
            if spec is not None:
                problem = validate(call["arguments"], spec["function"]["parameters"])
            result = {"error": problem} if problem else self._run(self.box, self.live, call)
            if "error" not in result and self.matched < len(self.reference) and self.reference[self.matched] == call:
                self.matched = self.matched + 1
            lines.append(f"{call['name']} -> {json.dumps(result, ensure_ascii=False)[:2500]}")
        if parsed["final"] is not None or self.turn >= ENV_SPEC["max_turns"]:
            self.finished = True
            success = self._snapshot(self.box, self.live) == self.target
            info["success"] = success
            lines.append("Bookings and payments match the expected result: task complete." if success else
                         "The bookings, balances or payment history do not match the expected result.")
            return "\n".join(lines), 1.0 if success else 0.0, True, False, info
        lines.append(f"(turn {self.turn} of {ENV_SPEC['max_turns']})")
        return "\n".join(lines), 0.0, False, False, info

    def privileged_hint(self):
        return (f"Milestones: {milestones([*self.reference, {'name': 'finish'}])}. Compare quotes per parcel after "
                f"dropping carriers that are too slow; the cheapest quote overall is not always allowed. Pay only "
                f"the bookings you made.")

    def reference_action(self):
        if self.matched < len(self.reference):
            return json.dumps(self.reference[self.matched], ensure_ascii=False)
        return json.dumps({"name": "finish", "arguments": {}})
