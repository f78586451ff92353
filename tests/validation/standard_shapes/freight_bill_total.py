# shape: answer returned through finish (a computed value from several lookups, with a stated format and tolerance; tools must stay unchanged)
"""SQL tables + file system + calculator: compute one carrier's weekly freight bill and report it via finish."""

import json
import re
from fractions import Fraction

from spade_domains.tool_use.actions import milestones, parse_tool_calls, render_tools
from spade_tools.calculator import Calculator
from spade_tools.filesystem import FileSystem
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "FreightBillTotal",
    "domain": "tool_use",
    "description": "Work out what one carrier bills for one week: look up the week's shipments, the carrier's "
                   "per-zone rates with minimum charges and the week's fuel surcharge, then report the total in "
                   "euros through finish's answer. Read-only: scored by the answer (to the cent) and an "
                   "unchanged database.",
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "shipments": {"min": 3, "max": 10, "default": 5,
                      "description": "billable shipments in the week; from 4 a cancelled one to leave out, from "
                                     "6 a light parcel where the zone's minimum charge applies"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete", "pwd", "ls", "cd", "mkdir",
              "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep", "calculate"],
    "grounding": "Road-freight invoicing: a carrier charges per kilogram by destination zone with a minimum charge "
                 "per consignment, plus a weekly fuel surcharge percentage on the whole bill.",
    "tags": ["sql", "filesystem", "calculator", "final-answer", "read-only"],
    "max_obs_chars": 16000,
}

CARRIERS = ["Nordline", "Transalp", "Baltic Haul", "Iberia Cargo", "Rhein Express", "Danube Freight"]
ZONES = ["Z1", "Z2", "Z3", "Z4"]
FINISH = {"type": "function", "function": {
    "name": "finish", "description": "End the episode, with the final answer.",
    "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                   "required": [], "additionalProperties": False}}}
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _number(text):
    """The single amount in an answer (thousands commas or a decimal comma allowed), else None."""
    found = NUMBER.findall(text.replace("\u20ac", " ").replace("EUR", " "))
    if len(found) != 1:
        return None
    raw = found[0]
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif re.fullmatch(r"-?\d+,\d{1,2}", raw):
        raw = raw.replace(",", ".")
    if "," in raw:
        return None
    return Fraction(raw)


class FreightBill:
    def __init__(self, shipments=5):
        self.shipments = shipments
        self.data = {}
        self.files = {}
        self.box = None
        self.schemas = []
        self.initial = {}
        self.plan = []
        self.expected = Fraction(0)
        self.task = ""
        self.turn = 0
        self.next_ref = 0
        self.over = False

    def _fresh(self):
        return Toolbox(SqlDatabase(self.data), FileSystem(self.files, cwd="/billing"), Calculator())

    def reset(self, rng, options):
        carrier = rng.choice(CARRIERS)
        others = [c for c in CARRIERS if c != carrier]
        week = rng.randint(2, 50)
        rates, rate_rows = {}, []
        for c in [carrier, *rng.sample(others, 2)]:
            for z in ZONES:
                per_kg = Fraction(rng.randint(18, 95), 100)
                minimum = Fraction(rng.randint(25, 60))
                rates[(c, z)] = (per_kg, minimum)
                rate_rows.append({"rate_id": f"{c}/{z}", "carrier": c, "zone": z, "per_kg": float(per_kg),
                                  "minimum_charge": float(minimum)})
        rows = []
        ids = rng.sample(range(10000, 99999), self.shipments + 12)
        billable = []
        for i in range(self.shipments):
            zone = rng.choice(ZONES)
            per_kg, minimum = rates[(carrier, zone)]
            if self.shipments >= 6 and i == 0:
                weight = Fraction(rng.randint(10, int(minimum / per_kg * 10) - 1), 10)
            else:
                weight = Fraction(rng.randint(int(minimum / per_kg * 10) + 5, 4000), 10)
            row = {"shipment_id": f"S{ids.pop()}", "carrier": carrier, "zone": zone, "weight_kg": float(weight),
                   "week": week, "status": "delivered"}
            rows.append(row)
            billable.append(max(weight * per_kg, minimum))
        noise = []
        if self.shipments >= 4:
            noise.append((carrier, week, "cancelled"))
        noise += [(carrier, week + rng.choice([-1, 1]), "delivered"), (rng.choice(others[:2]), week, "delivered")]
        noise += [(rng.choice(CARRIERS), rng.randint(1, 52), rng.choice(["delivered", "cancelled"]))
                  for _ in range(rng.randint(3, 6))]
        for c, w, status in noise:
            if c == carrier and w == week and status == "delivered":
                w = week + 2
            rows.append({"shipment_id": f"S{ids.pop()}", "carrier": c, "zone": rng.choice(ZONES),
                         "weight_kg": rng.randint(50, 3000) / 10, "week": w, "status": status})
        rng.shuffle(rows)
        surcharge = {}
        lines = ["Fuel surcharge table (percent added to the weekly bill)"]
        for w in (week - 1, week, week + 1):
            for c in sorted([carrier, *others[:2]]):
                pct = Fraction(rng.randint(20, 140), 10)
                surcharge[(c, w)] = pct
                lines.append(f"week {w} | {c} | {float(pct):.1f}%")
        self.files = {"billing": {"fuel_surcharge.txt": "\n".join(lines),
                                  "README.txt": "Bills are checked every Monday."}}
        self.data = {
            "shipments": {"columns": {"shipment_id": "TEXT", "carrier": "TEXT", "zone": "TEXT", "weight_kg": "REAL",
                                      "week": "INTEGER", "status": "TEXT"},
                          "primary_key": "shipment_id", "rows": rows},
            "rates": {"columns": {"rate_id": "TEXT", "carrier": "TEXT", "zone": "TEXT", "per_kg": "REAL",
                                  "minimum_charge": "REAL"}, "primary_key": "rate_id", "rows": rate_rows},
        }
        pct = surcharge[(carrier, week)]
        invoice = f"{carrier[:3].upper()}-{week:02d}-{rng.randint(100, 999)}"
        self.expected = sum(billable, Fraction(0)) * (1 + pct / 100)
        parts = " + ".join(f"max({float(w):g} * {float(rates[(carrier, z)][0]):g}, "
                           f"{float(rates[(carrier, z)][1]):g})"
                           for w, z in ((Fraction(r["weight_kg"]).limit_denominator(10), r["zone"])
                                        for r in rows if r["carrier"] == carrier and r["week"] == week
                                        and r["status"] == "delivered"))
        self.plan = [
            {"name": "select", "arguments": {"table": "shipments", "where": [
                {"column": "carrier", "op": "=", "value": carrier}, {"column": "week", "op": "=", "value": week}]}},
            {"name": "select", "arguments": {"table": "rates", "where": [
                {"column": "carrier", "op": "=", "value": carrier}]}},
            {"name": "grep", "arguments": {"file_name": "/billing/fuel_surcharge.txt", "pattern": f"week {week} |"}},
            {"name": "calculate", "arguments": {"expression": f"round(({parts}) * (1 + {float(pct):g} / 100), 2)"}},
        ]
        self.task = (
            f"Accounts payable is checking invoice {invoice} and asks: how much does {carrier} bill us for week "
            f"{week}? Every shipment of that "
            f"carrier in that week with status 'delivered' costs its weight in kg times the carrier's per_kg rate "
            f"for the shipment's zone, but never less than that rate's minimum_charge; cancelled shipments cost "
            f"nothing. The week's fuel surcharge percentage for {carrier} (in /billing/fuel_surcharge.txt) is then "
            f"added to the sum. Do not change any table or file. Call finish with the answer set to the total "
            f"in euros rounded to the cent, just the number (for example '1234.56'); answers within 0.01 of the "
            f"exact total are accepted."
        )
        self.box = self._fresh()
        self.schemas = [*self.box.schemas(), json.loads(json.dumps(FINISH))]
        for call in self.plan:
            if "error" in self._fresh().call(call["name"], call["arguments"]):
                self.plan = self.plan[:0]
        self.initial = self.box.snapshot()
        self.turn = 0
        self.next_ref = 0
        self.over = False
        obs = (f"{self.task}\n\nTools (one JSON schema per line):\n{render_tools(self.schemas)}\n\nCall a tool with "
               f"JSON {{\"name\": \"<tool>\", \"arguments\": {{...}}}} (a JSON list runs several in order); end "
               f"with {{\"name\": \"finish\", \"arguments\": {{\"answer\": \"...\"}}}}. You have "
               f"{ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(self.schemas))}

    def _judge(self, answer):
        value = _number(answer) if isinstance(answer, str) else None
        unchanged = self.box.snapshot() == self.initial
        right = value is not None and abs(value - self.expected) <= Fraction(1, 100)
        return right and unchanged, right, unchanged

    def step(self, action):
        if self.over:
            return "The episode is over.", 0.0, True, False, {"success": False, "format_error": None}
        self.turn = self.turn + 1
        parsed = parse_tool_calls(action if isinstance(action, str) else "", self.schemas)
        info = {"success": False, "format_error": parsed["error"]}
        out = []
        if parsed["error"] is not None:
            out.append(f"Format error: {parsed['error']}. Send a tool call as JSON, or finish with an answer.")
        for call in parsed["calls"]:
            result = self.box.call(call["name"], call["arguments"])
            if "error" in result:
                out.append(f"{call['name']} -> error: {result['error']}")
                continue
            if self.next_ref < len(self.plan) and call == self.plan[self.next_ref]:
                self.next_ref = self.next_ref + 1
            out.append(f"{call['name']} -> {json.dumps(result, ensure_ascii=False)[:2500]}")
        if parsed["final"] is not None or self.turn >= ENV_SPEC["max_turns"]:
            self.over = True
            ok, right, unchanged = self._judge(parsed["final"])
            info["success"] = ok
            if ok:
                out.append("Answer accepted: the total is correct.")
            elif parsed["final"] is None:
                out.append("Out of turns without an answer.")
            elif not unchanged:
                out.append("The task was read-only, but a table or file was changed.")
            elif _number(parsed["final"]) is None:
                out.append("The answer must contain exactly one number (the total in euros).")
            else:
                out.append("That total is not correct.")
            return "\n".join(out), 1.0 if ok else 0.0, True, False, info
        out.append(f"(turn {self.turn} of {ENV_SPEC['max_turns']})")
        return "\n".join(out), 0.0, False, False, info

    def privileged_hint(self):
        return (f"Milestones: {milestones([*self.plan, {'name': 'finish'}])}. Filter the shipments by carrier and "
                f"week, drop cancelled ones, apply max(weight * per_kg, minimum_charge) per shipment with the rate "
                f"of its own zone, and add the surcharge once to the sum (not per shipment).")

    def reference_action(self):
        if self.next_ref < len(self.plan):
            return json.dumps(self.plan[self.next_ref], ensure_ascii=False)
        answer = f"{float(round(self.expected, 2)):.2f}"
        return json.dumps({"name": "finish", "arguments": {"answer": answer}})
