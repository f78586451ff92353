# shape: SQL + calculator billing run: read orders, prices and the discount, write an invoice row and mark orders billed, then report the invoice amount to the cent in finish.
"""Bill one customer's shipped orders: several reads, two writes, and the invoice amount reported in finish."""

import json
import re
from fractions import Fraction

from spade_domains.tool_use.actions import parse_tool_calls
from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calculator import Calculator
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "BillShippedOrders",
    "domain": "tool_use",
    "description": "Look up a customer's shipped orders, the unit prices and the customer's discount in SQL tables, "
                   "insert one invoice row for the discounted total, mark those orders billed, and report the "
                   "invoice amount (to the cent) in the finish call; scored by final tables and the reported amount.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "orders": {"min": 2, "max": 8, "default": 4,
                   "description": "orders of the customer (more statuses to filter, more prices to look up)"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete", "calculate"],
    "grounding": "Order-to-invoice billing: only shipped, not yet billed orders are invoiced; line amount = quantity x "
                 "unit price; a customer discount applies to the invoice total, rounded half up to the cent; billed "
                 "orders change status so they are never invoiced twice.",
    "tags": ["sql", "calculator", "billing", "finish-answer", "state-equality"],
    "max_obs_chars": 16000,
}

CUSTOMERS = ["acme", "blue_harbor", "cobalt_labs", "delta_foods", "evergreen", "fjord_tech", "granite_co"]
SKUS = ["BOLT-10", "GEAR-22", "PIPE-35", "VALVE-4", "CABLE-9", "PUMP-71", "SEAL-18", "FUSE-30", "LAMP-12"]
STATUSES = ["pending", "cancelled", "billed"]


def money_text(cents):
    return f"{cents // 100}.{cents % 100:02d}"


def parse_money(text):
    cleaned = re.sub(r"(?i)\b(usd|dollars?)\b", "", (text or "").replace("$", "").replace(",", "")).strip()
    if not re.fullmatch(r"\d+(\.\d+)?", cleaned):
        return None
    return Fraction(cleaned)


class BillShippedOrders:
    def __init__(self, orders=4):
        self.orders = orders
        self.tables = {}
        self.amount_cents = 0
        self.done = False
        self.episode = None

    def reset(self, rng, options):
        customer, other = rng.sample(CUSTOMERS, 2)
        skus = rng.sample(SKUS, min(len(SKUS), self.orders + 2))
        prices = [{"sku": s, "unit_price": rng.randint(150, 9900) / 100} for s in skus]
        price_of = {p["sku"]: round(p["unit_price"] * 100) for p in prices}
        discounts = {c: rng.choice([0, 5, 7, 10, 12, 15]) for c in CUSTOMERS}
        discounts[customer] = rng.choice([5, 7, 10, 12, 15, 18])
        rows, number = [], rng.randint(100, 500)
        statuses = ["shipped"] + [rng.choice(["shipped", "shipped"] + STATUSES) for _ in range(self.orders - 1)]
        rng.shuffle(statuses)
        for status in statuses:
            number = number + rng.randint(1, 9)
            rows.append({"order_id": f"O-{number}", "customer": customer, "sku": rng.choice(skus[: self.orders]),
                         "qty": rng.randint(1, 12), "status": status})
        for _ in range(2):
            number = number + rng.randint(1, 9)
            rows.append({"order_id": f"O-{number}", "customer": other, "sku": rng.choice(skus), "qty": rng.randint(1, 9),
                         "status": "shipped"})
        rng.shuffle(rows)
        billed = sorted(r["order_id"] for r in rows if r["customer"] == customer and r["status"] == "shipped")
        gross = sum(r["qty"] * price_of[r["sku"]] for r in rows if r["order_id"] in billed)
        exact = Fraction(gross * (100 - discounts[customer]), 100)
        self.amount_cents = int(exact + Fraction(1, 2))
        invoice_id = f"INV-{rng.randint(2000, 9000)}"
        self.tables = {
            "orders": {"columns": {"order_id": "TEXT", "customer": "TEXT", "sku": "TEXT", "qty": "INTEGER",
                                   "status": "TEXT"}, "primary_key": "order_id", "rows": rows},
            "prices": {"columns": {"sku": "TEXT", "unit_price": "REAL"}, "primary_key": "sku", "rows": prices},
            "customers": {"columns": {"customer": "TEXT", "discount_pct": "INTEGER"}, "primary_key": "customer",
                          "rows": [{"customer": c, "discount_pct": d} for c, d in discounts.items()]},
            "invoices": {"columns": {"invoice_id": "TEXT", "customer": "TEXT", "amount": "REAL"},
                         "primary_key": "invoice_id",
                         "rows": [{"invoice_id": "INV-0001", "customer": other, "amount": 118.4}]},
        }
        mine = [r for r in rows if r["order_id"] in billed]
        line_sum = " + ".join(f"{r['qty']} * {money_text(price_of[r['sku']])}" for r in mine)
        reference = [
            {"name": "select", "arguments": {"table": "orders", "where": [
                {"column": "customer", "op": "=", "value": customer}]}},
            {"name": "select", "arguments": {"table": "prices", "where": [
                {"column": "sku", "op": "in", "value": sorted({r["sku"] for r in mine})}]}},
            {"name": "select", "arguments": {"table": "customers", "where": [
                {"column": "customer", "op": "=", "value": customer}]}},
            {"name": "calculate", "arguments": {"expression": f"({line_sum}) * {100 - discounts[customer]} / 100"}},
            {"name": "insert", "arguments": {"table": "invoices", "rows": [
                {"invoice_id": invoice_id, "customer": customer, "amount": self.amount_cents / 100}]}},
            {"name": "update", "arguments": {"table": "orders", "values": {"status": "billed"},
                                             "where": [{"column": "order_id", "op": "in", "value": billed}]}},
        ]
        task = (
            f"Run billing for customer '{customer}'. Tables: orders (order_id, customer, sku, qty, status), prices "
            f"(sku, unit_price), customers (customer, discount_pct), invoices (invoice_id, customer, amount).\n"
            f"Invoice every order of '{customer}' whose status is 'shipped' (not pending, cancelled or already "
            f"billed): the total is the sum of qty x unit_price, minus the customer's discount_pct percent, rounded "
            f"half up to the cent. Insert ONE invoices row with invoice_id '{invoice_id}', customer '{customer}' and "
            f"that amount; then set status 'billed' on exactly those orders. Change nothing else. Finally call "
            f"finish with the invoice amount in dollars as the answer, e.g. {{\"name\": \"finish\", \"arguments\": "
            f"{{\"answer\": \"123.45\"}}}}."
        )
        self.done = False
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Toolbox(SqlDatabase(json.loads(json.dumps(self.tables))), Calculator())

    def step(self, action):
        if self.done:
            return "The billing run is over.", 0.0, True, False, {"success": False}
        parsed = parse_tool_calls(action if isinstance(action, str) else "", self.episode.schemas)
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if not terminated:
            return obs, reward, terminated, truncated, info
        self.done = True
        stated = parse_money(parsed["final"]) if parsed["final"] is not None else None
        answer_ok = stated is not None and stated * 100 == self.amount_cents
        info["answer_correct"] = answer_ok
        if not answer_ok:
            obs = f"{obs}\nThe reported invoice amount is missing or wrong."
        success = bool(info.get("success")) and answer_ok
        info["success"] = success
        return obs, 1.0 if success else 0.0, True, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Filter the customer's orders by status before pricing them, apply "
                f"the discount once to the whole sum, and report exactly the amount you inserted.")

    def reference_action(self):
        action = self.episode.reference_action()
        if json.loads(action)["name"] == "finish":
            return json.dumps({"name": "finish", "arguments": {"answer": money_text(self.amount_cents)}})
        return action
