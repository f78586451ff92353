# shape: paginated API (opaque next_page_token, custom tools): the total needs every page, filtered by customer ...
"""Custom paginated API: total one customer's refunds across every page of a cursor-paginated endpoint, then record it."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools

ENV_SPEC = {
    "name": "PaginatedRefundAudit",
    "domain": "tool_use",
    "description": "A payments API lists refunds a few per page with an opaque next_page_token. The agent must "
                   "walk every page, keep only one customer's settled refunds, and record the total (to the cent) "
                   "with a single write tool; scored by the recorded state.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "pages": {"min": 2, "max": 7, "default": 4,
                  "description": "pages of results; the target customer's refunds are spread over all of them, "
                                 "and from 3 some of them are 'failed' refunds that must be left out"},
    },
    "tools": ["list_refunds", "record_total"],
    "grounding": "Cursor-based pagination as in the Stripe and GitHub REST APIs: a page holds a few items and a "
                 "next_page_token; the last page has a null token.",
    "tags": ["pagination", "api", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

CUSTOMERS = ["cus_ava", "cus_ben", "cus_cleo", "cus_dev", "cus_eli", "cus_fay", "cus_gus", "cus_hana"]
PAGE_SIZE = 4
SCHEMAS = [
    {"type": "function", "function": {
        "name": "list_refunds",
        "description": "List refunds, oldest first, 4 per page. Pass the previous response's next_page_token to get "
                       "the next page; next_page_token is null on the last page.",
        "parameters": {"type": "object", "properties": {"page_token": {"type": "string", "maxLength": 64}},
                       "required": [], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "record_total",
        "description": "Record the audited refund total of one customer (replaces any earlier record for them).",
        "parameters": {"type": "object", "properties": {"customer": {"type": "string", "maxLength": 40},
                                                        "total": {"type": "number"}},
                       "required": ["customer", "total"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "finish",
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                       "required": [], "additionalProperties": False}}},
]


class PaginatedRefundAudit:
    def __init__(self, pages=4):
        self.pages = pages
        self._clear()

    def _clear(self):
        self.items = []
        self.tokens = []
        self.target_customer = ""
        self.target_total = 0.0
        self.records = {}
        self.turn = 0
        self.done = False
        self.fetched = []
        self.task = ""

    def reset(self, rng, options):
        self._clear()
        n_items = self.pages * PAGE_SIZE - rng.randint(0, PAGE_SIZE - 1)
        customers = rng.sample(CUSTOMERS, 4)
        self.target_customer = customers[0]
        items = []
        for i in range(n_items):
            page = i // PAGE_SIZE
            # one target refund on every page
            cust = customers[0] if i % PAGE_SIZE == (page % PAGE_SIZE) % max(1, min(PAGE_SIZE, n_items - page * PAGE_SIZE)) \
                else rng.choice(customers)
            status = "succeeded"
            if self.pages >= 3 and rng.random() < 0.25:
                status = "failed"
            items.append({"id": f"re_{rng.randint(100000, 999999)}", "customer": cust,
                          "amount": round(rng.randint(150, 25000) / 100, 2), "status": status})
        # the target's first-page refund always succeeds so the total is never zero
        items[0]["customer"] = customers[0]
        items[0]["status"] = "succeeded"
        self.items = items
        n_pages = (n_items + PAGE_SIZE - 1) // PAGE_SIZE
        self.tokens = ["".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))
                       for _ in range(n_pages - 1)]
        self.target_total = round(sum(it["amount"] for it in items
                                      if it["customer"] == customers[0] and it["status"] == "succeeded"), 2)
        self.task = (f"Audit the refunds of customer '{self.target_customer}': add up the amounts of ALL their "
                     f"refunds with status 'succeeded' (leave out failed ones) over every page of list_refunds, and "
                     f"record the sum, rounded to the cent, with record_total for that customer. Record nothing for "
                     f"anyone else.")
        obs = (f"{self.task}\n\nTools (one JSON schema per line):\n{render_tools(SCHEMAS)}\n\n"
               f'Call a tool by replying with JSON: {{"name": "<tool>", "arguments": {{...}}}}. A JSON list runs '
               f'several calls in order. When the task is complete, call {{"name": "finish", "arguments": {{}}}}. '
               f"You have {ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(SCHEMAS))}

    # -- the simulated API ---------------------------------------------------------------------------------
    def _call(self, name, args):
        if name == "list_refunds":
            token = args.get("page_token")
            if token is None or token == "":
                page = 0
            elif token in self.tokens:
                page = self.tokens.index(token) + 1
            else:
                return {"error": f"invalid page_token {token!r}: pass a next_page_token returned by list_refunds"}
            if page not in self.fetched:
                self.fetched.append(page)
            chunk = self.items[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
            nxt = self.tokens[page] if page < len(self.tokens) else None
            return {"data": chunk, "next_page_token": nxt}
        if name == "record_total":
            customer = args["customer"]
            if customer not in CUSTOMERS:
                return {"error": f"unknown customer {customer!r}"}
            self.records[customer] = round(float(args["total"]), 2)
            return {"recorded": {"customer": customer, "total": self.records[customer]}}
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
        ok = self.records == {self.target_customer: self.target_total}
        info["success"] = ok
        verdict = ("The recorded audit is correct: task complete." if ok else
                   "The recorded audit does not match the expected result.")
        return f"{obs}\n{verdict}", (1.0 if ok else 0.0), True, False, info

    def privileged_hint(self):
        return ("Milestones: list_refunds (repeat, each time with the token the previous page returned, until the "
                "token is null) -> record_total -> finish. Filter on both customer and status before adding; "
                "only the last page has a null token.")

    def reference_action(self):
        for page in range(len(self.tokens) + 1):
            if page not in self.fetched:
                args = {} if page == 0 else {"page_token": self.tokens[page - 1]}
                return json.dumps({"name": "list_refunds", "arguments": args})
        if self.records != {self.target_customer: self.target_total}:
            return json.dumps({"name": "record_total", "arguments": {"customer": self.target_customer,
                                                                    "total": self.target_total}})
        return json.dumps({"name": "finish", "arguments": {}})
