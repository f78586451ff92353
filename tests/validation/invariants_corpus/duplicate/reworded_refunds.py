# expect: novelty
# twin: refund_desk
# flaw: RefundDesk with every identifier renamed and all text reworded
"""A library's returns desk: find the loan a patron describes and waive its fee."""

import json

ENV_SPEC = {
    "name": "FeeWaiver",
    "domain": "tool_use",
    "description": "Use list_loans, inspect and waive (JSON tool calls) to waive the loan a customer describes.",
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "difficulty": {"loans": {"min": 3, "max": 8, "default": 6, "description": "loans on the account"}},
    "grounding": "Retail customer service: waives are issued per loan for the amount paid.",
    "tools": ["list_loans", "inspect", "waive"],
    "tags": ["tools", "json", "multi-turn"],
}

TITLES = ["atlas", "novel", "cookbook", "diary", "poems", "almanac", "thesaurus", "comic", "memoir", "primer", "guide"]


class FeeWaiver:
    def __init__(self, loans=6):
        self.size = loans
        self.loans = {}
        self.chosen = ""

    def reset(self, rng, options):
        items = rng.sample(TITLES, self.size)
        ids = rng.sample(range(1000, 9999), self.size)
        self.loans = {f"R-{i}": {"item": item, "pennies": rng.randint(500, 9999)} for i, item in zip(ids, items)}
        self.chosen = rng.choice(sorted(self.loans))
        self.checked = set()
        self.browsed = False
        item = self.loans[self.chosen]["item"]
        return (f"A patron says: 'I returned the {item} late, please waive the whole fee.' Tools: list_loans {{}}, "
                "inspect {\"loan_id\"}, waive {\"loan_id\", \"amount\"} (amount in dollars, e.g. 12.34). Reply "
                "with one JSON call {\"name\": ..., \"arguments\": {...}} per turn."), {}

    def step(self, action):
        try:
            call = json.loads(action)
            name, args = call["name"], call["arguments"]
        except (ValueError, KeyError, TypeError):
            return "Send exactly one JSON call.", 0.0, False, False, {"format_error": "not a JSON tool call"}
        if not isinstance(args, dict):
            return "The arguments need to be a JSON object.", 0.0, False, False, {"format_error": "arguments not an object"}
        if name == "list_loans":
            self.browsed = True
            rows = ", ".join(f"{k} ({v['item']})" for k, v in sorted(self.loans.items()))
            return f"Loans: {rows}.", 0.0, False, False, {}
        if name == "inspect":
            loan = self.loans.get(str(args.get("loan_id")))
            if loan is None:
                return "Unknown loan.", 0.0, False, False, {"action_is_valid": False}
            self.checked.add(str(args.get("loan_id")))
            return f"{args['loan_id']}: {loan['item']}, paid {loan['pennies'] // 100}.{loan['pennies'] % 100:02d}.", \
                0.0, False, False, {}
        if name == "waive":
            loan = self.loans.get(str(args.get("loan_id")))
            try:
                pennies = round(float(args.get("amount")) * 100)
            except (TypeError, ValueError, OverflowError):
                return "Give the fee as a number.", 0.0, False, False, {"format_error": "amount not a number"}
            ok = loan is not None and args.get("loan_id") == self.chosen and pennies == loan["pennies"]
            return ("Fee waived; the patron is grateful." if ok else "That waiver does not match the loan "
                    "or fee."), (1.0 if ok else 0.0), True, False, {"success": ok}
        return f"No tool called {str(name)[:30]!r}.", 0.0, False, False, {"action_is_valid": False}

    def privileged_hint(self):
        return "list_loans -> inspect -> waive; you choose the arguments."

    def reference_action(self):
        if not self.browsed:
            return json.dumps({"name": "list_loans", "arguments": {}})
        if self.chosen not in self.checked:
            return json.dumps({"name": "inspect", "arguments": {"loan_id": self.chosen}})
        pennies = self.loans[self.chosen]["pennies"]
        return json.dumps({"name": "waive", "arguments": {"loan_id": self.chosen,
                                                           "amount": f"{pennies // 100}.{pennies % 100:02d}"}})
