# shape: parallel calls (each stage is one JSON list of several calls; the turn limit leaves no room to go one by one)
"""File system + calendar: book a week of fire drills from a rota, several tool calls per turn."""

import json

from spade_domains.tool_use.actions import milestones, parse_tool_calls, render_tools
from spade_tools.calendar_tool import Calendar
from spade_tools.filesystem import FileSystem
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "FireDrillRotaParallel",
    "domain": "tool_use",
    "description": "Read a fire warden's drill rota, find the earliest free slot on each drill day and book every "
                   "drill, with only a handful of turns: each stage has to be sent as one JSON list of parallel "
                   "calls. Scored by the final calendar and file tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "days": {"min": 3, "max": 7, "default": 5,
                 "description": "rota days, so calls per parallel batch; from 5 a day marked 'no drill' to skip, "
                                "from 6 a day whose drill window opens after a meeting already on the calendar"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep",
              "list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Workplace fire safety: a warden runs one evacuation drill per building on a rota, announced in "
                 "the warden's calendar, each after a stated earliest time so it does not clash with opening hours.",
    "tags": ["calendar", "filesystem", "parallel-calls", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

FINISH_TOOL = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 2000}},
                       "required": [], "additionalProperties": False},
    },
}
BUILDINGS = ["Block A", "Block B", "Block C", "Block D", "Library", "Gym", "Workshop", "Canteen", "Annex",
             "Lab Wing", "Studio", "Depot"]
MEETINGS = ["Site walk", "Supplier call", "Team huddle", "Contractor visit", "Budget review", "Training",
            "Alarm test", "Lunch cover", "Inspection", "Handover"]
WARDENS = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Ribeiro", "Novak", "Haddad", "Keane"]
MAX_RESULT = 2500


class FireDrillRota:
    def __init__(self, days=5):
        self.days = days
        self.warden = ""
        self.rota_text = ""
        self.events = []
        self.box = None
        self.schemas = []
        self.batches = []
        self.flat = []
        self.target = {}
        self.turn = 0
        self.matched = 0
        self.done = False
        self.task = ""

    # -- scenario -------------------------------------------------------------------------------------------
    @staticmethod
    def _hhmm(minutes):
        return f"{minutes // 60:02d}:{minutes % 60:02d}"

    def _day_events(self, rng, day):
        out = []
        t = 8 * 60 + 15 * rng.randint(0, 6)
        for _ in range(rng.randint(2, 4)):
            length = 15 * rng.randint(2, 6)
            if t + length > 17 * 60:
                break
            out.append({"title": rng.choice(MEETINGS), "day": day, "start": self._hhmm(t),
                        "end": self._hhmm(t + length)})
            t = t + length + 15 * rng.randint(0, 5)
        return out

    def _toolbox(self):
        return Toolbox(FileSystem({"warden": {"rota.txt": self.rota_text, "notes.txt": "keep the drill log here"}},
                                  cwd="/warden"),
                       Calendar(self.events, day_start="08:00", day_end="18:00"))

    def reset(self, rng, options):
        count = self.days
        self.warden = rng.choice(WARDENS)
        month = rng.randint(1, 12)
        first = rng.randint(1, 20)
        dates = [f"2025-{month:02d}-{first + i:02d}" for i in range(count)]
        duration = rng.choice([20, 30, 45])
        buildings = rng.sample(BUILDINGS, count)
        skip = rng.randrange(count) if count >= 5 else -1
        self.events = []
        lines = [f"Fire drill rota of warden {self.warden}. Each drill lasts {duration} minutes."]
        plan = []
        late = rng.randrange(count) if count >= 6 else -1
        for i, day in enumerate(dates):
            todays = self._day_events(rng, day)
            self.events.extend(todays)
            if i == skip:
                lines.append(f"{day}: no drill ({buildings[i]} closed for a public holiday)")
                continue
            earliest = 8 * 60 + 30 * rng.randint(1, 10)
            if i == late and todays:
                earliest = max(8 * 60, int(todays[-1]["start"][:2]) * 60 + int(todays[-1]["start"][3:]) - 15)
            lines.append(f"{day}: {buildings[i]}, not before {self._hhmm(earliest)}")
            plan.append((day, buildings[i], self._hhmm(earliest)))
        self.rota_text = "\n".join(lines)
        scratch = self._toolbox()
        reads = [{"name": "cat", "arguments": {"file_name": "/warden/rota.txt"}}]
        finds, adds = [], []
        for day, building, earliest in plan:
            args = {"day": day, "duration_minutes": duration, "earliest": earliest}
            finds.append({"name": "find_free_slot", "arguments": args})
            slot = scratch.call("find_free_slot", args)
            adds.append({"name": "add_event", "arguments": {"title": f"Fire drill - {building}", "day": day,
                                                            "start": slot["start"],
                                                            "duration_minutes": duration}})
        self.task = (
            f"You are the assistant of fire warden {self.warden}. The rota in /warden/rota.txt covers the "
            f"{count} days from {dates[0]} to {dates[-1]} and gives, for each day, the building to drill and the earliest time the drill may start (days marked 'no drill' get "
            f"nothing). For every drill day, add one calendar event titled 'Fire drill - <building>' exactly as the "
            f"building is written in the rota, lasting the drill length stated in the rota, at the EARLIEST start "
            f"on that day at or after the rota's time that does not overlap any event already on the calendar "
            f"(the day ends at 18:00). Change nothing else. You only have {ENV_SPEC['max_turns']} turns, so send "
            f"the calls of one stage together as one JSON list (at most 8 calls per turn); their results come "
            f"back together."
        )
        self.schemas = [*Toolbox(FileSystem(), Calendar()).schemas(), json.loads(json.dumps(FINISH_TOOL))]
        self.batches = []
        for batch in (reads, finds, [*adds, {"name": "finish", "arguments": {}}]):
            parsed = parse_tool_calls(json.dumps(batch), self.schemas)
            self.batches.append([*parsed["calls"], {"name": "finish", "arguments": {}}] if parsed["final"] is not None
                                else parsed["calls"])
        self.flat = [c for b in self.batches for c in b]
        replay = self._toolbox()
        for call in self.flat:
            if call["name"] != "finish":
                replay.call(call["name"], call["arguments"])
        self.target = replay.snapshot()
        self.box = self._toolbox()
        self.turn = 0
        self.matched = 0
        self.done = False
        obs = (f"{self.task}\n\nTools (one JSON schema per line):\n{render_tools(self.schemas)}\n\n"
               f"Call a tool by replying with JSON: {{\"name\": \"<tool>\", \"arguments\": {{...}}}}. A JSON list "
               f"[{{...}}, {{...}}] runs several calls in order in one turn. When the task is complete, call "
               f"{{\"name\": \"finish\", \"arguments\": {{}}}} (it may be the last item of a list).")
        return obs, {"tools": json.loads(json.dumps(self.schemas))}

    # -- episode --------------------------------------------------------------------------------------------
    def _close(self, text, info):
        self.done = True
        success = self.box.snapshot() == self.target
        info["success"] = success
        if success:
            verdict = "The calendar and files match the expected result: task complete."
        else:
            verdict = "The final state does not match the expected result (check the slots, titles and lengths)."
        return f"{text}\n{verdict}".strip(), 1.0 if success else 0.0, True, False, info

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "format_error": None}
        self.turn = self.turn + 1
        parsed = parse_tool_calls(action if isinstance(action, str) else "", self.schemas)
        info = {"success": False, "format_error": parsed["error"], "tool_calls": len(parsed["calls"])}
        last = self.turn >= ENV_SPEC["max_turns"]
        if parsed["error"] is not None:
            text = (f"Format error: {parsed['error']}\nReply with a tool call as JSON, or a JSON list of calls.")
            if last:
                return self._close(f"{text}\nOut of turns.", info)
            return f"{text}\n(turn {self.turn} of {ENV_SPEC['max_turns']})", 0.0, False, False, info
        lines = []
        for call in parsed["calls"]:
            result = self.box.call(call["name"], call["arguments"])
            if "error" not in result and self.matched < len(self.flat) and self.flat[self.matched] == call:
                self.matched = self.matched + 1
            shown = json.dumps(result, ensure_ascii=False)
            if len(shown) > MAX_RESULT:
                shown = shown[:MAX_RESULT] + " ... (cut)"
            lines.append(f"{call['name']} -> {'error: ' + result['error'] if 'error' in result else shown}")
        text = "\n".join(lines)
        if parsed["final"] is not None:
            if self.matched < len(self.flat) and self.flat[self.matched]["name"] == "finish":
                self.matched = self.matched + 1
            return self._close(f"{text}\nFinish called.", info)
        if last:
            return self._close(f"{text}\nOut of turns.", info)
        return f"{text or 'No tool calls.'}\n(turn {self.turn} of {ENV_SPEC['max_turns']})", 0.0, False, False, info

    def privileged_hint(self):
        return (f"Milestones: {milestones(self.flat)}. Three turns are enough: first read the rota, then one list "
                f"with a find_free_slot per drill day (pass the rota's time as 'earliest'), then one list with "
                f"every add_event followed by finish.")

    def reference_action(self):
        seen = 0
        for batch in self.batches:
            if self.matched < seen + len(batch):
                rest = batch[self.matched - seen:]
                return json.dumps(rest[0] if len(rest) == 1 else rest, ensure_ascii=False)
            seen = seen + len(batch)
        return json.dumps({"name": "finish", "arguments": {}})
