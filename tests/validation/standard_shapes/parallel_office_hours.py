# shape: parallel independent calls in one turn (get_office for every city as a JSON list; the 5-turn budget ...
"""Custom tools with parallel calls: look up several offices' time zones and hours in ONE turn (independent calls),
then book the earliest call slot inside everyone's business hours; the turn budget only fits parallel look-ups."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools

ENV_SPEC = {
    "name": "ParallelOfficeHours",
    "domain": "tool_use",
    "description": "Book a company-wide video call at the earliest UTC quarter hour when every listed office is "
                   "inside its own business hours. Each office is one independent get_office call; the turn budget "
                   "is too small to make them one per turn, so they must go out in parallel (a JSON list).",
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "offices": {"min": 3, "max": 7, "default": 4,
                    "description": "offices to look up (one call each); from 5 one office keeps a lunch break "
                                   "that the call must avoid"},
    },
    "tools": ["get_office", "book_call"],
    "grounding": "BFCL parallel function calling (several independent calls in one turn) and UTC offsets of "
                 "world cities, including half-hour zones such as India (UTC+5:30).",
    "tags": ["parallel-calls", "time-zones", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

CITIES = {"London": 0, "Lisbon": 0, "Berlin": 60, "Cairo": 120, "Nairobi": 180, "Dubai": 240, "Mumbai": 330,
          "Reykjavik": 0, "Helsinki": 120, "Lagos": 60, "Karachi": 300, "Warsaw": 60}
SCHEMAS = [
    {"type": "function", "function": {
        "name": "get_office",
        "description": "An office's UTC offset (minutes) and local business hours (HH:MM), with any lunch break.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40}},
                       "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "book_call",
        "description": "Book the company call at a UTC start time (HH:MM) for a number of minutes. Booking again "
                       "replaces the earlier booking.",
        "parameters": {"type": "object", "properties": {"utc_start": {"type": "string", "pattern":
                                                                      "^[0-2][0-9]:[0-5][0-9]$"},
                                                        "duration_minutes": {"type": "integer", "minimum": 15,
                                                                             "maximum": 240}},
                       "required": ["utc_start", "duration_minutes"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "finish",
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                       "required": [], "additionalProperties": False}}},
]


def _t(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class ParallelOfficeHours:
    def __init__(self, offices=4):
        self.offices = offices
        self._clear()

    def _clear(self):
        self.data = {}
        self.duration = 30
        self.target = None
        self.booking = None
        self.looked_up = False
        self.turn = 0
        self.done = False

    def _free(self, utc_start):
        # is [utc_start, utc_start + duration) inside every office's hours (and outside lunch breaks)?
        for row in self.data.values():
            s = utc_start + row["offset"]
            e = s + self.duration
            if s < row["open"] or e > row["close"]:
                return False
            if row["lunch"] is not None and s < row["lunch"][1] and e > row["lunch"][0]:
                return False
        return True

    def reset(self, rng, options):
        self._clear()
        n = self.offices
        for _ in range(200):
            self.data = {}
            for city in rng.sample(sorted(CITIES), n):
                open_ = rng.choice([6, 7, 8, 9, 10, 11]) * 60 + rng.choice([0, 15, 30, 45])
                close = open_ + rng.choice([7, 8, 9, 10]) * 60
                lunch = None
                if n >= 5 and not any(r["lunch"] for r in self.data.values()):
                    ls = rng.choice([12, 13]) * 60
                    lunch = (ls, ls + 60)
                self.data[city] = {"offset": CITIES[city], "open": open_, "close": close, "lunch": lunch}
            self.duration = rng.choice([30, 45, 60])
            starts = [m for m in range(0, 24 * 60, 15) if self._free(m)]
            if starts:
                self.target = _t(starts[0])
                break
        if self.target is None:
            self.data = {"London": {"offset": 0, "open": 540, "close": 1020, "lunch": None},
                         "Berlin": {"offset": 60, "open": 540, "close": 1020, "lunch": None}}
            self.target = "09:00"
        cities = sorted(self.data, key=lambda c: rng.random())
        task = (f"Book a {self.duration}-minute company call for today at the EARLIEST UTC start on a quarter hour (:00, :15, :30, :45) "
                f"when every one of these offices is within its business hours (and not on a lunch break) "
                f"for the whole call: {', '.join(cities)}. Look the offices up with get_office; you have only "
                f"{ENV_SPEC['max_turns']} turns, so send independent look-ups together as one JSON list. Book once "
                f"with book_call (UTC), then finish.")
        obs = (f"{task}\n\nTools (one JSON schema per line):\n{render_tools(SCHEMAS)}\n\n"
               f'Call a tool by replying with JSON: {{"name": "<tool>", "arguments": {{...}}}}. A JSON list (up to 8 '
               f'calls) runs several calls in one turn. When the task is complete, call '
               f'{{"name": "finish", "arguments": {{}}}}. You have {ENV_SPEC["max_turns"]} turns.')
        return obs, {"tools": json.loads(json.dumps(SCHEMAS))}

    def _call(self, name, args):
        if name == "get_office":
            row = self.data.get(args["city"])
            if row is None:
                return {"error": f"no office in {args['city']!r}; offices in this task: {sorted(self.data)}"}
            out = {"city": args["city"], "utc_offset_minutes": row["offset"], "opens": _t(row["open"]),
                   "closes": _t(row["close"])}
            if row["lunch"] is not None:
                out["lunch_break"] = f"{_t(row['lunch'][0])}-{_t(row['lunch'][1])}"
            return out
        if name == "book_call":
            self.booking = {"utc_start": args["utc_start"], "duration_minutes": args["duration_minutes"]}
            return {"booked": self.booking}
        return {"error": f"unknown tool {name!r}"}

    def step(self, action):
        if self.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        self.turn = self.turn + 1
        parsed = parse_tool_calls(action if isinstance(action, str) else "", SCHEMAS)
        info = {"success": False, "format_error": parsed["error"], "tool_calls": len(parsed["calls"])}
        if parsed["error"] is not None:
            obs = (f"Format error: {parsed['error']}\nReply with a tool call as JSON (or a JSON list of calls), "
                   f'or {{"name": "finish", "arguments": {{}}}} when done.')
            return self._end(obs, info) if self.turn >= ENV_SPEC["max_turns"] else (obs, 0.0, False, False, info)
        lines = []
        for call in parsed["calls"]:
            result = self._call(call["name"], call["arguments"])
            lines.append(f"{call['name']} -> {json.dumps(result)}")
        if len([c for c in parsed["calls"] if c["name"] == "get_office"]) == len(self.data):
            self.looked_up = True
        obs = "\n".join(lines) or "No tool calls."
        if parsed["final"] is not None or self.turn >= ENV_SPEC["max_turns"]:
            return self._end(obs, info)
        return f"{obs}\n(turn {self.turn} of {ENV_SPEC['max_turns']})", 0.0, False, False, info

    def _end(self, obs, info):
        self.done = True
        ok = self.booking == {"utc_start": self.target, "duration_minutes": self.duration}
        info["success"] = ok
        verdict = ("The call is booked at the right time: task complete." if ok else
                   "The booking does not match the expected result.")
        return f"{obs}\n{verdict}", (1.0 if ok else 0.0), True, False, info

    def privileged_hint(self):
        return ("Milestones: get_office for every city in ONE turn (a JSON list) -> book_call -> finish. Convert each "
                "office's hours to UTC by subtracting its offset; the answer is the first quarter hour where the "
                "call fits inside the latest opening and the earliest closing, clear of any lunch break.")

    def reference_action(self):
        if not self.looked_up:
            return json.dumps([{"name": "get_office", "arguments": {"city": c}} for c in sorted(self.data)])
        if self.booking != {"utc_start": self.target, "duration_minutes": self.duration}:
            return json.dumps({"name": "book_call", "arguments": {"utc_start": self.target,
                                                                  "duration_minutes": self.duration}})
        return json.dumps({"name": "finish", "arguments": {}})
