"""SQL table + calendar: process pending room-booking requests against the room's calendar."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "RoomBookings",
    "domain": "tool_use",
    "description": "Work through a table of booking requests in id order: book the room's calendar when the "
                   "slot is free and mark the request confirmed, otherwise mark it declined; scored by the final "
                   "table and calendar.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "requests": {"min": 2, "max": 8, "default": 4,
                     "description": "pending requests; more requests collide with each other more often"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "First-come-first-served resource booking: requests are handled in arrival order, a granted "
                 "request blocks later overlapping ones, and every request gets a recorded decision.",
    "tags": ["sqlite", "calendar", "multi-tool", "state-equality"],
    "max_obs_chars": 16000,
}

PEOPLE = ["ana", "ben", "chloe", "dev", "emma", "farid", "grace", "hiro", "ines", "jonas"]
MONDAYS = [6, 13, 20, 27]
ROOMS = ["B", "Aurora", "Fjord", "Juniper", "2.14", "Lighthouse"]
EXISTING = ["Facilities check", "All-hands prep", "Training", "Interview loop"]


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class RoomBookings:
    def __init__(self, requests=4):
        self.requests = requests
        self.events = []
        self.rows = []
        self.episode = None

    def reset(self, rng, options):
        count = self.requests
        monday = rng.choice(MONDAYS)
        days = [f"2025-10-{monday + i:02d}" for i in range(1 if count <= 4 else 2)]
        room = rng.choice(ROOMS)
        events = []
        for day in days:
            for title in rng.sample(EXISTING, 2):
                start = rng.randint(18, 31) * 30
                if all(not (start < e["end"] and e["start"] < start + 60) for e in events if e["day"] == day):
                    events.append({"title": title, "day": day, "start": start, "end": start + 60})
        self.events = [{"title": e["title"], "day": e["day"], "start": hhmm(e["start"]), "end": hhmm(e["end"])}
                       for e in events]
        rows = []
        request_id = rng.randint(100, 400)
        for _ in range(count):
            request_id = request_id + rng.randint(1, 9)
            rows.append({"id": request_id, "requester": rng.choice(PEOPLE), "day": rng.choice(days),
                         "start": hhmm(rng.randint(18, 32) * 30), "minutes": rng.choice([30, 60, 90]),
                         "status": "pending"})
        rng.shuffle(rows)
        self.rows = rows
        planner = Calendar(self.events)
        reference = [
            {"name": "select", "arguments": {"table": "requests", "where": [
                {"column": "status", "op": "=", "value": "pending"}], "order_by": "id"}},
            {"name": "list_events", "arguments": {}},
        ]
        confirmed, declined = [], []
        for row in sorted(rows, key=lambda r: r["id"]):
            booking = {"title": f"Booked: {row['requester']}", "day": row["day"], "start": row["start"],
                       "duration_minutes": row["minutes"]}
            if "error" in planner.call("add_event", booking):
                declined.append(row["id"])
            else:
                confirmed.append(row["id"])
                reference.append({"name": "add_event", "arguments": booking})
        for status, ids in (("confirmed", confirmed), ("declined", declined)):
            if ids:
                reference.append({"name": "update", "arguments": {
                    "table": "requests", "values": {"status": status},
                    "where": [{"column": "id", "op": "in", "value": ids}]}})
        task = (
            f"You manage meeting room {room}. The table 'requests' (id, requester, day, start, minutes, status) holds "
            "booking requests; the room's calendar holds what is already booked. Handle every request with status "
            "'pending' in increasing id order: if the requested time (start, for 'minutes' minutes) is free in the "
            "calendar, add an event titled 'Booked: <requester>' at exactly that time and set the request's status "
            "to 'confirmed'; if it overlaps anything already booked (including requests you confirmed before it), "
            "set its status to 'declined' and book nothing. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        table = SqlDatabase({"requests": {
            "columns": {"id": "INTEGER", "requester": "TEXT", "day": "TEXT", "start": "TEXT", "minutes": "INTEGER",
                        "status": "TEXT"},
            "primary_key": "id",
            "rows": self.rows,
        }})
        return Toolbox(table, Calendar(self.events))

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Go strictly by id, not by the order rows are stored in; a "
                f"request you confirm can block a later one.")

    def reference_action(self):
        return self.episode.reference_action()
