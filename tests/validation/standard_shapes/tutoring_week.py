# shape: BFCL-style parallel calls in one turn (independent slot searches and bookings as JSON lists), final-state check
"""Calendar + table: book confirmed tutoring requests at the earliest free slot; independent look-ups in parallel."""

import json

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "BookTutoringRequests",
    "domain": "tool_use",
    "description": "Read a table of tutoring requests, find the earliest free slot on each confirmed request's "
                   "day at or after its not-before time (the days are independent, so the look-ups can run as "
                   "parallel calls in one turn), book the sessions and mark the requests booked; scored by the "
                   "final calendar and table.",
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "requests": {"min": 2, "max": 5, "default": 4,
                     "description": "requests in the table; from 3 one is tentative and must be skipped, from 4 "
                                    "a request's not-before time falls inside a busy block"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "A private tutor's week: students send requests with a day, a length and an earliest start "
                 "(after school); confirmed ones are booked first-fit into the tutor's calendar.",
    "tags": ["calendar", "sqlite", "parallel-calls", "state-equality"],
    "max_obs_chars": 16000,
}

STUDENTS = ["Amara", "Bruno", "Chen", "Dalia", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas"]
DAYS = ["2025-09-15", "2025-09-16", "2025-09-17", "2025-09-18", "2025-09-19"]
BUSY = ["School run", "Lesson prep", "Marking", "Faculty call", "Gym", "Lunch with Sara", "Dentist"]


def _hm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class BookTutoringRequests:
    def __init__(self, requests=4):
        self.requests = requests
        self.events = []
        self.rows = []
        self.groups = []
        self.episode = None

    def reset(self, rng, options):
        count = self.requests
        days = rng.sample(DAYS, count)
        names = rng.sample(STUDENTS, count)
        tentative = rng.randrange(count) if count >= 3 else -1
        self.events = []
        self.rows = []
        for d in sorted(set(days)):
            t = 9 * 60 + rng.choice([0, 30, 60])
            while t < 16 * 60:
                length = rng.choice([30, 45, 60, 90])
                if t + length > 16 * 60:
                    break
                self.events.append({"title": rng.choice(BUSY), "day": d, "start": _hm(t), "end": _hm(t + length)})
                t += length + rng.choice([0, 15, 30, 45, 60, 90])
        for i, (name, d) in enumerate(zip(names, days)):
            minutes = rng.choice([45, 60, 90])
            not_before = 9 * 60 + 60 * rng.randint(1, 5)
            if count >= 4 and i == count - 1:
                busy = [e for e in self.events if e["day"] == d]
                if busy:
                    e = rng.choice(busy)
                    h, m = e["start"].split(":")
                    not_before = int(h) * 60 + int(m) + 15 if int(m) % 30 == 0 else int(h) * 60 + int(m)
            status = "tentative" if i == tentative else "confirmed"
            self.rows.append({"student": name, "day": d, "minutes": minutes, "not_before": _hm(not_before),
                              "status": status})
        rng.shuffle(self.rows)
        # reference: one select, then all look-ups in parallel, then all bookings, then one update
        # (days are distinct, so a booking on one day never changes another day's earliest slot)
        confirmed = sorted((r for r in self.rows if r["status"] == "confirmed"), key=lambda r: r["student"])
        scratch = self._toolbox()
        finds, adds = [], []
        for r in confirmed:
            args = {"day": r["day"], "duration_minutes": r["minutes"], "earliest": r["not_before"]}
            finds.append({"name": "find_free_slot", "arguments": args})
            slot = scratch.call("find_free_slot", args)
            adds.append({"name": "add_event", "arguments": {"title": f"Tutoring: {r['student']}", "day": r["day"],
                                                            "start": slot["start"],
                                                            "duration_minutes": r["minutes"]}})
        update = {"name": "update", "arguments": {
            "table": "requests", "values": {"status": "booked"},
            "where": [{"column": "student", "op": "in", "value": [r["student"] for r in confirmed]}]}}
        reference = [{"name": "select", "arguments": {"table": "requests"}}, *finds, *adds, update]
        self.groups = [1, len(finds), len(adds), 1]
        task = (
            "You manage a tutor's calendar. The table 'requests' holds this week's tutoring requests. For every "
            "request with status 'confirmed' (leave the others alone), book an event titled 'Tutoring: <student>' "
            "on the request's day, lasting its 'minutes', at the earliest free time at or after its 'not_before' "
            "time (working hours end at 18:00; never overlap an existing event). Then set the status of exactly "
            "those requests to 'booked'. Do not move or cancel existing events. The requests are on different "
            "days, so you may look up several days at once with a JSON list of calls."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        db = SqlDatabase(tables={"requests": {
            "columns": {"student": "TEXT", "day": "TEXT", "minutes": "INTEGER", "not_before": "TEXT",
                        "status": "TEXT"},
            "primary_key": "student", "rows": [dict(r) for r in self.rows]}})
        return Toolbox(db, Calendar(events=[dict(e) for e in self.events], day_start="09:00", day_end="18:00"))

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Skip non-confirmed rows; pass each request's not-before time as "
                f"the earliest bound of the slot search, and batch the independent per-day calls.")

    def reference_action(self):
        done = self.episode.matched
        total = len(self.episode.reference)
        if done >= total:
            return self.episode.reference_action()
        start = 0
        for size in self.groups:
            if done < start + size:
                batch = self.episode.reference[done:start + size]
                if len(batch) == 1:
                    return json.dumps(batch[0])
                return json.dumps(batch)
            start += size
        return self.episode.reference_action()
