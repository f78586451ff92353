# shape: a BFCL-style multi-turn tool task with many read-only calls before a final answer (bank ledger)
"""Read account histories with the ledger tools and report the total spent on one memo category; nothing is
changed, so the answer (given with finish) is what is scored."""

import json
import re

from spade_domains.tool_use.actions import parse_tool_calls, render_tools
from spade_tools.ledger import Ledger
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "LedgerSpendingLookup",
    "domain": "tool_use",
    "description": "Look through several bank accounts' histories with read-only tools and report the total spent "
                   "on one category.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {"accounts": {"min": 2, "max": 5, "default": 3, "description": "accounts to read"}},
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history"],
    "grounding": "Expense reporting: the spend in a category is the sum of the withdrawals tagged with it.",
    "tags": ["tool-use", "read-only", "ledger", "multi-turn"],
}

ACCOUNTS = ["checking", "savings", "travel_card", "joint", "business"]
CATEGORIES = ["groceries", "fuel", "rent", "dining", "books"]
FINISH = {"type": "function", "function": {
    "name": "finish", "description": "End the task with the final answer.",
    "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 200}},
                   "required": ["answer"], "additionalProperties": False}}}
AMOUNT = re.compile(r"-?\d+(?:\.\d{1,2})?")


class LedgerSpendingLookup:
    def __init__(self, accounts=3):
        self.accounts = accounts
        self.names = []
        self.records = []
        self.category = ""
        self.box = None
        self.schemas = []
        self.read = []
        self.turn = 0
        self.done = False

    def reset(self, rng, options):
        self.names = ACCOUNTS[:self.accounts]
        self.category = rng.choice(CATEGORIES)
        self.records = []
        for name in self.names:
            for _ in range(rng.randint(3, 6)):
                kind = rng.choice(["withdrawal", "withdrawal", "deposit"])
                memo = rng.choice(CATEGORIES) if kind == "withdrawal" else "salary"
                self.records.append({"account": name, "kind": kind, "amount": rng.randint(500, 20000) / 100,
                                     "memo": memo})
        if self.total() == 0:
            self.records.append({"account": self.names[-1], "kind": "withdrawal", "amount": 42.5,
                                 "memo": self.category})
        self.box = Toolbox(Ledger({name: 1000 for name in self.names}, self.records))
        self.schemas = [*self.box.schemas(), FINISH]
        self.read = []
        self.turn = 0
        self.done = False
        return (f"How much was spent on '{self.category}' across all accounts? Spending is a withdrawal whose memo "
                "is the category. Read the histories with the tools (change nothing), then call finish with the "
                "total in the answer, e.g. {\"name\": \"finish\", \"arguments\": {\"answer\": \"123.45\"}}.\n\n"
                f"Tools:\n{render_tools(self.schemas)}\nYou have {ENV_SPEC['max_turns']} turns."), {}

    def total(self):
        return round(sum(r["amount"] for r in self.records
                         if r["kind"] == "withdrawal" and r["memo"] == self.category), 2)

    def step(self, action):
        if self.done:
            return "The task is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        last = self.turn >= ENV_SPEC["max_turns"]
        parsed = parse_tool_calls(action, self.schemas)
        if parsed["error"] is not None:
            info = {"success": False, "format_error": parsed["error"], "action_is_valid": False}
            self.done = last
            return f"Format error: {parsed['error']}", 0.0, last, False, info
        lines = []
        for call in parsed["calls"]:
            name, arguments = call["name"], call["arguments"]
            if name == "finish":
                continue
            if name not in ("list_accounts", "balance", "history"):
                lines.append(f"{name} -> error: this task only reads; nothing may change")
                continue
            lines.append(f"{name} -> {json.dumps(self.box.call(name, dict(arguments)))}")
            if name == "history" and arguments.get("account") not in self.read:
                self.read.append(arguments.get("account"))
        if parsed["final"] is None:
            self.done = last
            return "\n".join(lines) or "No tool calls.", 0.0, last, False, {"success": False}
        self.done = True
        found = AMOUNT.fullmatch(parsed["final"].strip().lstrip("$"))
        ok = found is not None and abs(float(found.group(0)) - self.total()) < 0.005
        verdict = "Correct total." if ok else "That is not the total."
        return "\n".join([*lines, verdict]), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return "Call history once per account (list_accounts names them), then add up the matching withdrawals."

    def reference_action(self):
        for name in self.names:
            if name not in self.read:
                return json.dumps({"name": "history", "arguments": {"account": name}})
        return json.dumps({"name": "finish", "arguments": {"answer": f"{self.total():.2f}"}})
