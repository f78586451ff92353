# shape: error recovery (429 with retry_after + 400 invalid lower-case code) before converting and paying ...
"""Custom API with errors to recover from: convert foreign-currency invoices to EUR through a rate-limited FX tool
(429s and invalid-argument errors), then pay each converted amount."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools

ENV_SPEC = {
    "name": "FxInvoiceRateLimit",
    "domain": "tool_use",
    "description": "Pay supplier invoices in euros: each invoice is in a foreign currency, and the FX rate tool is "
                   "rate-limited (a 429 error asks the caller to wait) and rejects lower-case currency codes. The "
                   "agent must recover from both errors, convert each amount and pay it; scored by the payments made.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "invoices": {"min": 2, "max": 6, "default": 4,
                     "description": "invoices to pay; more invoices mean more rate lookups, so more 429s to wait out"},
    },
    "tools": ["list_invoices", "get_rate", "wait", "pay_invoice"],
    "grounding": "HTTP 429 Too Many Requests with a Retry-After header, and ISO 4217 currency codes (upper case) "
                 "in foreign-exchange APIs.",
    "tags": ["errors", "rate-limit", "api", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

CURRENCIES = {"USD": 0.92, "GBP": 1.17, "CHF": 1.04, "JPY": 0.0061, "SEK": 0.088, "PLN": 0.23, "CAD": 0.68,
              "NOK": 0.086}
SUPPLIERS = ["Acme Tools", "Borealis Paper", "Castor Freight", "Delta Labs", "Equinox Print", "Fjord Fish",
             "Granite Works"]
QUOTA = 2
SCHEMAS = [
    {"type": "function", "function": {
        "name": "list_invoices", "description": "List the open invoices (id, supplier, amount, currency).",
        "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "get_rate",
        "description": "Euros per one unit of an ISO 4217 currency (upper-case code, e.g. 'USD'). Rate-limited: "
                       "after a 429 error, call wait with at least the retry_after seconds before trying again.",
        "parameters": {"type": "object", "properties": {"currency": {"type": "string", "maxLength": 8}},
                       "required": ["currency"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "wait", "description": "Wait the given number of seconds (resets the rate limit when long enough).",
        "parameters": {"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 0,
                                                                    "maximum": 600}},
                       "required": ["seconds"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "pay_invoice",
        "description": "Pay an invoice in euros (amount_eur). An invoice can be paid once.",
        "parameters": {"type": "object", "properties": {"invoice_id": {"type": "string", "maxLength": 20},
                                                        "amount_eur": {"type": "number"}},
                       "required": ["invoice_id", "amount_eur"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "finish",
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                       "required": [], "additionalProperties": False}}},
]


class FxInvoiceRateLimit:
    def __init__(self, invoices=4):
        self.invoices = invoices
        self._clear()

    def _clear(self):
        self.rows = []
        self.rates = {}
        self.target = {}
        self.payments = {}
        self.cache = {}
        self.quota = QUOTA
        self.retry_after = 0
        self.turn = 0
        self.done = False

    def reset(self, rng, options):
        self._clear()
        n = self.invoices
        codes = rng.sample(sorted(CURRENCIES), min(n, len(CURRENCIES) - 1))
        for code in codes:
            self.rates[code] = round(CURRENCIES[code] * (1 + rng.randint(-400, 400) / 10000), 6)
        suppliers = rng.sample(SUPPLIERS, n)
        for i in range(n):
            code = codes[i % len(codes)]
            amount = rng.randint(2000, 90000) if code == "JPY" else round(rng.randint(5000, 400000) / 100, 2)
            inv = {"id": f"INV-{rng.randint(1000, 9999)}{i}", "supplier": suppliers[i], "amount": amount,
                   "currency": code.lower()}
            self.rows.append(inv)
            self.target[inv["id"]] = round(amount * self.rates[code], 2)
        self.retry_after = rng.choice([5, 10, 20, 30])
        task = ("Pay every open invoice in euros. For each invoice, get the current rate of its currency with "
                "get_rate, multiply the invoice amount by that rate, round to the cent, and pay that amount with "
                "pay_invoice. The FX tool is rate-limited and strict about currency codes: when it returns an error, "
                "fix the cause and try again. Pay each invoice exactly once and nothing else.")
        obs = (f"{task}\n\nTools (one JSON schema per line):\n{render_tools(SCHEMAS)}\n\n"
               f'Call a tool by replying with JSON: {{"name": "<tool>", "arguments": {{...}}}}. A JSON list runs '
               f'several calls in order. When the task is complete, call {{"name": "finish", "arguments": {{}}}}. '
               f"You have {ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(SCHEMAS))}

    def _call(self, name, args):
        if name == "list_invoices":
            return {"invoices": [dict(r) for r in self.rows if r["id"] not in self.payments]}
        if name == "get_rate":
            code = args["currency"]
            if code != code.upper() or code.upper() not in CURRENCIES:
                return {"error": f"400 invalid argument: currency {code!r} is not an upper-case ISO 4217 code "
                                 f"this service supports"}
            if code in self.cache:
                return {"currency": code, "eur_per_unit": self.cache[code], "cached": True}
            if self.quota <= 0:
                return {"error": "429 too many requests", "retry_after": self.retry_after}
            self.quota = self.quota - 1
            rate = self.rates.get(code, CURRENCIES[code])
            self.cache[code] = rate
            return {"currency": code, "eur_per_unit": rate}
        if name == "wait":
            if args["seconds"] >= self.retry_after:
                self.quota = QUOTA
            return {"waited": args["seconds"]}
        if name == "pay_invoice":
            inv = args["invoice_id"]
            if inv not in self.target:
                return {"error": f"404 unknown invoice {inv!r}"}
            if inv in self.payments:
                return {"error": f"409 invoice {inv} is already paid"}
            self.payments[inv] = round(float(args["amount_eur"]), 2)
            return {"paid": inv, "amount_eur": self.payments[inv]}
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
        ok = self.payments == self.target
        info["success"] = ok
        verdict = ("Every invoice is paid with the right amount: task complete." if ok else
                   "The payments do not match the expected result.")
        return f"{obs}\n{verdict}", (1.0 if ok else 0.0), True, False, info

    def privileged_hint(self):
        return ("Milestones: list_invoices -> get_rate (repeat) with wait whenever a 429 appears -> pay_invoice "
                "(repeat) -> finish. Codes from the invoice list need converting to upper case; a rate you already "
                "fetched is served from cache and costs no quota.")

    def reference_action(self):
        if self.turn == 0:
            return json.dumps({"name": "list_invoices", "arguments": {}})
        for r in self.rows:
            code = r["currency"].upper()
            if code not in self.cache:
                if self.quota <= 0:
                    return json.dumps({"name": "wait", "arguments": {"seconds": self.retry_after}})
                return json.dumps({"name": "get_rate", "arguments": {"currency": code}})
        for r in self.rows:
            if r["id"] not in self.payments:
                return json.dumps({"name": "pay_invoice", "arguments": {"invoice_id": r["id"],
                                                                       "amount_eur": self.target[r["id"]]}})
        return json.dumps({"name": "finish", "arguments": {}})
