# shape: a multi-step booking flow with a confirmation step (look up, search, hold a slot, confirm the hold with payment)
"""Custom booking tools: book a pet-grooming appointment through hold-then-confirm."""

import json

from spade_domains.tool_use.actions import parse_tool_calls, render_tools


def fn(name, description, properties, required):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


TOOLS = [
    fn("get_pet", "Show a pet's profile (size, owner, payment method on file, groomers to avoid).",
       {"pet": {"type": "string"}}, ["pet"]),
    fn("list_groomers", "List the groomers and the pet sizes each one handles.", {}, []),
    fn("search_slots", "List the open appointment slots of a day (held or booked slots are not shown).",
       {"day": {"type": "string", "description": "YYYY-MM-DD"}}, ["day"]),
    fn("hold_slot", "Put a temporary hold on an open slot for a pet and a service; returns a hold_id.",
       {"slot_id": {"type": "string"}, "pet": {"type": "string"},
        "service": {"type": "string", "enum": ["groom_standard", "groom_large", "nail_trim"]}},
       ["slot_id", "pet", "service"]),
    fn("confirm_booking", "Turn a hold into a confirmed booking, paid with the given method.",
       {"hold_id": {"type": "string"}, "payment": {"type": "string", "enum": ["card", "cash", "voucher"]}},
       ["hold_id", "payment"]),
    fn("release_hold", "Release a hold so the slot is open again.", {"hold_id": {"type": "string"}}, ["hold_id"]),
    fn("cancel_booking", "Cancel a booking made in this session.", {"booking_id": {"type": "string"}},
       ["booking_id"]),
    fn("finish", "End the episode once the appointment is booked.", {"answer": {"type": "string"}}, []),
]

ENV_SPEC = {
    "name": "GroomingHoldConfirm",
    "domain": "tool_use",
    "description": "Book a pet-grooming appointment with a salon's booking tools: read the pet's profile and the "
                   "groomers' skills, find the earliest suitable open slot, hold it and confirm the hold with the "
                   "payment method on file, leaving no stray holds; scored by the final bookings and holds.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "groomers": {"min": 2, "max": 5, "default": 3,
                     "description": "groomers on shift, each with a day of slots; from 3 the earliest open slot "
                                    "at the requested time belongs to a groomer who fails a rule (size skills or "
                                    "the avoid list)"},
    },
    "tools": ["get_pet", "list_groomers", "search_slots", "hold_slot", "confirm_booking", "release_hold",
              "cancel_booking"],
    "grounding": "Appointment booking flows: search, a temporary hold, and an explicit confirmation with payment, "
                 "with groomer skills by pet size and client preferences.",
    "tags": ["booking", "custom-tools", "multi-turn", "confirmation"],
    "max_obs_chars": 16000,
}

GROOMERS = ["Alba", "Bodhi", "Cyra", "Dante", "Elke", "Faye"]
PETS = ["Biscuit", "Mochi", "Pepper", "Juno", "Rocket", "Tofu", "Hazel", "Ziggy", "Olive", "Bruno"]
OWNERS = ["Mrs. Arendt", "Mr. Baptiste", "Ms. Collins", "Dr. Dahl", "Mx. Evers"]


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class GroomingHoldConfirm:
    def __init__(self, groomers=3):
        self.groomers = groomers
        self.day = ""
        self.pets = {}
        self.staff = {}
        self.slots = {}
        self.bookings = []
        self.holds = {}
        self.hold_base = 0
        self.serial = 0
        self.target = {}
        self.goal = {}
        self.pet = ""
        self.read_plan = []
        self.reads_done = 0
        self.turn = 0
        self.finished = False

    def reset(self, rng, options):
        self.day = f"2025-10-{rng.randint(1, 28):02d}"
        crew = rng.sample(GROOMERS, self.groomers)
        sizes = ["small", "medium", "large"]
        self.staff = {}
        for g in crew:
            handles = sorted(rng.sample(sizes, rng.randint(1, 3)))
            self.staff[g] = handles
        names = rng.sample(PETS, 3)
        self.pet = names[0]
        self.pets = {}
        for name in names:
            self.pets[name] = {"pet": name, "species": "dog", "size": rng.choice(sizes), "owner": rng.choice(OWNERS),
                               "payment_on_file": rng.choice(["card", "cash", "voucher"]), "avoid": []}
        size = self.pets[self.pet]["size"]
        able = [g for g in crew if size in self.staff[g]]
        if not able:
            self.staff[crew[0]] = sorted(set(self.staff[crew[0]]) | {size})
            able = [crew[0]]
        if len(able) >= 2:
            self.pets[self.pet]["avoid"] = [rng.choice(able)]
        earliest = rng.choice([9 * 60, 10 * 60, 11 * 60 + 30, 13 * 60])
        self.slots = {}
        self.bookings = []
        for g in crew:
            start = 9 * 60
            while start + 60 <= 17 * 60:
                slot_id = f"{g[:2].upper()}-{hhmm(start).replace(':', '')}"
                self.slots[slot_id] = {"slot_id": slot_id, "groomer": g, "start": hhmm(start)}
                if rng.random() < 0.35:
                    self.bookings.append({"slot_id": slot_id, "pet": rng.choice(names[1:]), "service": "nail_trim",
                                          "payment": "card"})
                start += rng.choice([60, 90])
        allowed = [s for s in self.slots.values()
                   if s["groomer"] in able and s["groomer"] not in self.pets[self.pet]["avoid"]]
        booked_ids = {b["slot_id"] for b in self.bookings}
        traps = sorted(s["slot_id"] for s in self.slots.values()
                       if s not in allowed and s["slot_id"] not in booked_ids and "10:00" <= s["start"] <= "14:00"
                       and not any(a["start"] == s["start"] and a["slot_id"] not in booked_ids for a in allowed))
        if self.groomers >= 3 and traps:
            start = self.slots[rng.choice(traps)]["start"]
            earliest = int(start[:2]) * 60 + int(start[3:])
        late = max(allowed, key=lambda s: (s["start"], s["slot_id"]))
        if late["start"] < hhmm(earliest):
            earliest = int(late["start"][:2]) * 60 + int(late["start"][3:])
        taken = {b["slot_id"] for b in self.bookings}
        if all(s["slot_id"] in taken for s in allowed if s["start"] >= hhmm(earliest)):
            self.bookings = [b for b in self.bookings if b["slot_id"] != late["slot_id"]]
            taken.discard(late["slot_id"])
        fits = sorted((s for s in allowed if s["slot_id"] not in taken and s["start"] >= hhmm(earliest)),
                      key=lambda s: (s["start"], s["slot_id"]))
        service = "groom_large" if size == "large" else "groom_standard"
        self.target = {"slot_id": fits[0]["slot_id"], "pet": self.pet, "service": service,
                       "payment": self.pets[self.pet]["payment_on_file"]}
        self.goal = self._state_of([*self.bookings, self.target], {})
        self.holds = {}
        self.hold_base = rng.randint(100, 899)
        self.serial = 0
        self.read_plan = [{"name": "get_pet", "arguments": {"pet": self.pet}},
                          {"name": "list_groomers", "arguments": {}},
                          {"name": "search_slots", "arguments": {"day": self.day}}]
        self.reads_done = 0
        self.turn = 0
        self.finished = False
        self.bookings = [dict(b, booking_id=f"B{n + 1}") for n, b in enumerate(self.bookings)]
        owner = self.pets[self.pet]["owner"]
        task = (
            f"{owner} wants a grooming appointment for {self.pet} on {self.day}, at {hhmm(earliest)} or later. Use "
            f"service 'groom_large' if the pet's size is large, otherwise 'groom_standard'. The groomer must handle "
            f"the pet's size and must not be on the pet's avoid list. Take the earliest open slot that fits (on a "
            f"tie, the smallest slot_id). Hold that slot, then confirm the hold with the payment method on file in "
            f"the pet's profile. When you finish, no hold may be left open and no other booking may have been made."
        )
        obs = (f"{task}\n\nTools (one JSON schema per line):\n{render_tools(TOOLS)}\n\n"
               f'Call a tool with {{"name": "<tool>", "arguments": {{...}}}}; a JSON list runs several calls in '
               f"order. You have {ENV_SPEC['max_turns']} turns.")
        return obs, {"tools": json.loads(json.dumps(TOOLS))}

    # -- state --------------------------------------------------------------------------------------------
    @staticmethod
    def _state_of(bookings, holds):
        keep = ("slot_id", "pet", "service", "payment")
        return {"bookings": sorted(json.dumps({k: b[k] for k in keep}, sort_keys=True) for b in bookings),
                "holds": sorted(json.dumps([h["slot_id"], h["pet"], h["service"]]) for h in holds.values())}

    def _open_slots(self, day):
        if day != self.day:
            return []
        busy = {b["slot_id"] for b in self.bookings} | {h["slot_id"] for h in self.holds.values()}
        return [dict(s) for s in sorted(self.slots.values(), key=lambda s: (s["start"], s["slot_id"]))
                if s["slot_id"] not in busy]

    # -- tools --------------------------------------------------------------------------------------------
    def _call(self, name, args):
        if name == "get_pet":
            pet = self.pets.get(args["pet"].strip().title())
            return {"pet": pet} if pet else {"error": f"no pet named {args['pet'][:40]!r}"}
        if name == "list_groomers":
            return {"groomers": [{"groomer": g, "handles": h} for g, h in sorted(self.staff.items())]}
        if name == "search_slots":
            return {"day": args["day"], "open_slots": self._open_slots(args["day"])}
        if name == "hold_slot":
            if args["slot_id"] not in {s["slot_id"] for s in self._open_slots(self.day)}:
                return {"error": f"slot {args['slot_id'][:20]!r} is not open"}
            if args["pet"] not in self.pets:
                return {"error": f"no pet named {args['pet'][:40]!r}"}
            self.serial += 1
            hold_id = f"H{self.hold_base + self.serial}"
            self.holds[hold_id] = {"hold_id": hold_id, "slot_id": args["slot_id"], "pet": args["pet"],
                                   "service": args["service"]}
            return {"hold": dict(self.holds[hold_id])}
        if name == "confirm_booking":
            hold = self.holds.pop(args["hold_id"], None)
            if hold is None:
                return {"error": f"no open hold {args['hold_id'][:20]!r}"}
            self.serial += 1
            booking = {"booking_id": f"B{100 + self.serial}", "slot_id": hold["slot_id"], "pet": hold["pet"],
                       "service": hold["service"], "payment": args["payment"]}
            self.bookings.append(booking)
            return {"confirmed": dict(booking)}
        if name == "release_hold":
            hold = self.holds.pop(args["hold_id"], None)
            return {"released": hold["hold_id"]} if hold else {"error": f"no open hold {args['hold_id'][:20]!r}"}
        if name == "cancel_booking":
            mine = [b for b in self.bookings if b["booking_id"] == args["booking_id"] and int(b["booking_id"][1:]) > 100]
            if not mine:
                return {"error": f"no booking {args['booking_id'][:20]!r} made in this session"}
            self.bookings.remove(mine[0])
            return {"cancelled": args["booking_id"]}
        return {"error": f"unknown tool {name}"}

    def step(self, action):
        if self.finished:
            return "The episode is over.", 0.0, True, False, {"success": False, "format_error": None}
        self.turn += 1
        info = {"success": False, "format_error": None, "tool_calls": 0}
        parsed = parse_tool_calls(action if isinstance(action, str) else "", TOOLS)
        notes = []
        if parsed["error"] is not None:
            info["format_error"] = parsed["error"]
            notes.append(f"Format error: {parsed['error']}")
        for call in parsed["calls"]:
            result = self._call(call["name"], call["arguments"])
            if "error" not in result and self.reads_done < 3 and call == self.read_plan[self.reads_done]:
                self.reads_done += 1
            notes.append(f"{call['name']} -> " + (f"error: {result['error']}" if "error" in result
                                                  else json.dumps(result)[:4000]))
        info["tool_calls"] = len(parsed["calls"])
        if parsed["final"] is not None or self.turn >= ENV_SPEC["max_turns"]:
            self.finished = True
            won = self._state_of(self.bookings, self.holds) == self.goal
            info["success"] = won
            notes.append("Appointment booked as requested." if won else
                         "The bookings and holds are not as requested.")
            return "\n".join(notes), (1.0 if won else 0.0), True, False, info
        notes.append(f"(turn {self.turn} of {ENV_SPEC['max_turns']})")
        return "\n".join(notes), 0.0, False, False, info

    # -- solver and hint ----------------------------------------------------------------------------------
    def privileged_hint(self):
        return ("Milestones: get_pet -> list_groomers -> search_slots -> hold_slot -> confirm_booking -> finish. "
                "Filter the open slots by groomer skill and the avoid list before taking the earliest; release any "
                "hold you do not confirm.")

    def reference_action(self):
        if self.reads_done < 3:
            return json.dumps(self.read_plan[self.reads_done])
        for hold_id, hold in sorted(self.holds.items()):
            if (hold["slot_id"], hold["pet"], hold["service"]) != (self.target["slot_id"], self.pet,
                                                                    self.target["service"]):
                return json.dumps({"name": "release_hold", "arguments": {"hold_id": hold_id}})
        for b in self.bookings:
            if int(b["booking_id"][1:]) > 100 and {k: b[k] for k in self.target} != self.target:
                return json.dumps({"name": "cancel_booking", "arguments": {"booking_id": b["booking_id"]}})
        if not any(int(b["booking_id"][1:]) > 100 for b in self.bookings):
            for hold_id in sorted(self.holds):
                return json.dumps({"name": "confirm_booking", "arguments": {"hold_id": hold_id,
                                                                            "payment": self.target["payment"]}})
            return json.dumps({"name": "hold_slot", "arguments": {"slot_id": self.target["slot_id"], "pet": self.pet,
                                                                  "service": self.target["service"]}})
        return json.dumps({"name": "finish", "arguments": {}})
