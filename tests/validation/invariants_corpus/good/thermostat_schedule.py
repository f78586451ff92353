# expect: accepted
"""Smart-thermostat API: apply a household's setpoint changes to the weekly heating schedule."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools

ENV_SPEC = {
    "name": "ThermostatSchedule",
    "domain": "tool_use",
    "description": "Apply requested changes to a multi-zone thermostat's weekly schedule through its API: unlock "
                   "the schedule with the PIN derived from the device serial, read each affected day, and set "
                   "each setpoint to its new temperature; scored by the resulting schedule.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "requests": {"min": 1, "max": 6, "default": 3,
                     "description": "setpoint changes requested (each needs a read of the current value and a "
                                    "write); more requests touch more zones and days"},
    },
    "tools": ["get_device", "unlock_schedule", "get_schedule", "set_setpoint", "remove_setpoint"],
    "grounding": "Programmable thermostats keep a weekly schedule of setpoints per zone (time -> temperature); "
                 "installer settings such as the schedule are PIN-protected against accidental edits.",
    "tags": ["api", "smart-home", "schedule", "multi-turn"],
    "max_obs_chars": 16000,
}

ZONES = ["living", "bedroom", "office", "kitchen", "nursery"]
DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
DAY_NAMES = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday",
             "sat": "Saturday", "sun": "Sunday"}
TIMES = ["06:00", "06:30", "07:00", "08:00", "12:00", "17:00", "18:30", "21:00", "22:30"]
MODELS = ["Heatwise T4", "Calora Z3", "ThermaLink 2"]


def text_arg(description):
    return {"type": "string", "minLength": 1, "maxLength": 20, "description": description}


def tool(name, description, properties, required):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


TOOLS = [
    tool("get_device", "Show the thermostat: model, serial number, zones, allowed range and lock state.", {}, []),
    tool("unlock_schedule", "Unlock the weekly schedule for editing with the installer PIN.",
         {"pin": text_arg("4-digit installer PIN")}, ["pin"]),
    tool("get_schedule", "List the setpoints of one zone on one day, sorted by time.",
         {"zone": text_arg("zone name"), "day": text_arg("mon, tue, wed, thu, fri, sat or sun")}, ["zone", "day"]),
    tool("set_setpoint", "Set the temperature of a setpoint (replaces the setpoint at that time, or adds one). "
                         "Needs the schedule unlocked.",
         {"zone": text_arg("zone name"), "day": text_arg("mon ... sun"), "time": text_arg("HH:MM"),
          "celsius": {"type": "number", "description": "temperature in steps of 0.5"}},
         ["zone", "day", "time", "celsius"]),
    tool("remove_setpoint", "Delete the setpoint at a time. Needs the schedule unlocked.",
         {"zone": text_arg("zone name"), "day": text_arg("mon ... sun"), "time": text_arg("HH:MM")},
         ["zone", "day", "time"]),
    tool("finish", "End the episode once the task is complete.",
         {"answer": {"type": "string", "maxLength": 2000}}, []),
]


class ApiError(Exception):
    pass


class ThermostatSchedule:
    def __init__(self, requests=3):
        self.requests = requests
        self.serial = ""
        self.model = ""
        self.zones = []
        self.schedule = {}
        self.locked = True
        self.writes = []
        self.wanted = {}
        self.reference = []
        self.matched = 0
        self.turn = 0
        self.done = False

    def reset(self, rng, options):
        self.model = rng.choice(MODELS)
        self.serial = f"TS-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
        self.zones = rng.sample(ZONES, 2 + rng.randint(0, 2))
        schedule = {}
        for zone in self.zones:
            schedule[zone] = {}
            for day in DAYS:
                times = sorted(rng.sample(TIMES, 4))
                schedule[zone][day] = {t: rng.randint(32, 44) / 2 for t in times}
        self.schedule = schedule
        self.locked = True
        self.writes = []
        slots = []
        while len(slots) < self.requests:
            zone, day = rng.choice(self.zones), rng.choice(DAYS)
            time = rng.choice(sorted(schedule[zone][day]))
            if (zone, day, time) not in [s[:3] for s in slots]:
                delta = rng.choice([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0])
                slots.append((zone, day, time, delta))
        self.wanted = {}
        lines = []
        reference = [{"name": "get_device", "arguments": {}},
                     {"name": "unlock_schedule", "arguments": {"pin": self.serial[-4:]}}]
        for zone, day, time, delta in slots:
            target = schedule[zone][day][time] + delta
            self.wanted[f"{zone}|{day}|{time}"] = target
            word = "warmer" if delta > 0 else "cooler"
            lines.append(f"  - {zone}, {DAY_NAMES[day]}: the {time} setpoint should be {abs(delta):g} degrees "
                         f"{word} than it is now")
            reference.append({"name": "get_schedule", "arguments": {"zone": zone, "day": day}})
            reference.append({"name": "set_setpoint", "arguments": {"zone": zone, "day": day, "time": time,
                                                                    "celsius": target}})
        self.reference = reference
        self.matched = 0
        self.turn = 0
        self.done = False
        task = (
            "The household asked for these changes to the heating schedule:\n" + "\n".join(lines) + "\n"
            "The schedule is locked: unlock it with unlock_schedule, whose PIN is the last four digits of the "
            "device's serial number (get_device). Read the current value of each setpoint, then set it to the new "
            "temperature. Change nothing else: no other setpoint, no new times."
        )
        obs = (f"{task}\n\nTools (one JSON schema per line):\n{render_tools(TOOLS)}\n\n"
               'Call a tool by replying with JSON: {"name": "<tool>", "arguments": {...}}. A JSON list runs several '
               'calls in order. When the task is complete, call {"name": "finish", "arguments": {}}. '
               f"You have {ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(TOOLS))}

    # -- the device API ----------------------------------------------------------------------------------
    def day_of(self, zone, day):
        if zone not in self.schedule:
            raise ApiError(f"unknown zone {zone!r} (zones: {', '.join(self.zones)})")
        if day not in DAYS:
            raise ApiError(f"unknown day {day!r} (use {', '.join(DAYS)})")
        return self.schedule[zone][day]

    def api(self, name, args):
        if name == "get_device":
            return {"model": self.model, "serial": self.serial, "zones": list(self.zones), "range_c": [5, 30],
                    "step_c": 0.5, "schedule_locked": self.locked}
        if name == "unlock_schedule":
            if args["pin"] != self.serial[-4:]:
                raise ApiError("wrong PIN")
            self.locked = False
            return {"schedule_locked": False}
        if name == "get_schedule":
            points = self.day_of(args["zone"], args["day"])
            return {"zone": args["zone"], "day": args["day"],
                    "setpoints": [{"time": t, "celsius": points[t]} for t in sorted(points)]}
        if name == "set_setpoint":
            points = self.day_of(args["zone"], args["day"])
            if self.locked:
                raise ApiError("the schedule is locked; unlock it first")
            celsius = args["celsius"]
            if not 5 <= celsius <= 30 or celsius * 2 != int(celsius * 2):
                raise ApiError("celsius must be between 5 and 30 in steps of 0.5")
            time = args["time"]
            if len(time) != 5 or time[2] != ":" or not (time[:2] + time[3:]).isdigit() or int(time[:2]) > 23 \
                    or int(time[3:]) > 59:
                raise ApiError("time must look like HH:MM")
            points[time] = float(celsius)
            self.writes.append([args["zone"], args["day"], args["time"], args["celsius"]])
            return {"zone": args["zone"], "day": args["day"], "time": time, "celsius": float(celsius)}
        if name == "remove_setpoint":
            points = self.day_of(args["zone"], args["day"])
            if self.locked:
                raise ApiError("the schedule is locked; unlock it first")
            if args["time"] not in points:
                raise ApiError(f"no setpoint at {args['time']}")
            del points[args["time"]]
            return {"removed": args["time"]}
        raise ApiError(f"unknown tool {name!r}")

    def verdict(self):
        last = {}
        for zone, day, time, celsius in self.writes:
            last[f"{zone}|{day}|{time}"] = celsius
        return last == self.wanted

    # -- the episode ---------------------------------------------------------------------------------------
    def step(self, action):
        if self.done:
            raise RuntimeError("the episode is over; reset the environment")
        self.turn = self.turn + 1
        last_turn = self.turn >= ENV_SPEC["max_turns"]
        parsed = parse_tool_calls(action, TOOLS)
        info = {"success": False, "format_error": parsed["error"], "action_is_valid": parsed["error"] is None}
        if parsed["error"] is not None:
            obs = f"Format error: {parsed['error']}\nReply with one tool call as JSON, or call finish when done."
            return self.close(obs, info) if last_turn else self.keep(obs, info)
        expected = self.reference[self.matched] if self.matched < len(self.reference) else None
        lines = []
        for call in parsed["calls"]:
            try:
                result = self.api(call["name"], call["arguments"])
            except ApiError as err:
                info["action_is_valid"] = False
                lines.append(f"{call['name']} -> error: {err}")
                continue
            if expected is not None and parse_tool_calls(json.dumps(expected), TOOLS)["calls"] == [call]:
                self.matched = self.matched + 1
                expected = self.reference[self.matched] if self.matched < len(self.reference) else None
            lines.append(f"{call['name']} -> {json.dumps(result)}")
        obs = "\n".join(lines)
        if parsed["final"] is not None:
            return self.close(f"{obs}\nFinish called.".strip(), info)
        if last_turn:
            return self.close(f"{obs}\nOut of turns.".strip(), info)
        return self.keep(obs or "No tool calls.", info)

    def keep(self, obs, info):
        return f"{obs}\n(turn {self.turn} of {ENV_SPEC['max_turns']})", 0.0, False, False, info

    def close(self, obs, info):
        self.done = True
        success = self.verdict()
        info["success"] = success
        note = "The schedule changes are as requested: task complete." if success else \
            "The schedule changes are not as requested."
        return f"{obs}\n{note}", 1.0 if success else 0.0, True, False, info

    def privileged_hint(self):
        return ("Milestones: get_device -> unlock_schedule -> get_schedule -> set_setpoint (alternate these two "
                "per request) -> finish. 'Warmer' adds to the current value, 'cooler' subtracts; write the time "
                "exactly as the schedule shows it.")

    def reference_action(self):
        if self.matched < len(self.reference):
            return json.dumps(self.reference[self.matched])
        return json.dumps({"name": "finish", "arguments": {}})
