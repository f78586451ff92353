# shape: the goal is a final state of a small database, checked field by field (every cell of every table)
"""SQL tables: run a hostel's morning bed-board update (housekeeping, check-outs, check-ins)."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "HostelBedBoard",
    "domain": "tool_use",
    "description": "A hostel's bed board and today's arrivals are SQL tables. Apply the morning routine in its "
                   "stated order: cleaned beds become ready, every stay loses a night and finished stays check "
                   "out, then arrivals take the lowest-numbered ready bed in their dorm; scored cell by cell "
                   "against the expected tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "arrivals": {"min": 1, "max": 5, "default": 3,
                     "description": "guests checking in today (two updates each); from 4 the first two "
                                    "arrivals want the same dorm, so beds get scarce and the phase order matters"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Hostel front-desk routine: nights remaining per stay, check-out when a stay ends, housekeeping "
                 "before a bed can be re-let, dorm preferences.",
    "tags": ["sql", "multi-turn", "state-equality", "field-by-field"],
    "max_obs_chars": 16000,
}

DORMS = ["Atlas", "Boreal", "Cedar", "Dune"]
GUESTS = ["Abebe", "Brandt", "Cho", "Duarte", "Eze", "Falk", "Gallo", "Haas", "Ilic", "Jovanovic", "Kaur", "Lund",
          "Moyo", "Nakata", "Olsen", "Perez", "Quinn", "Rahman", "Stein", "Tran"]


class HostelBedBoard:
    def __init__(self, arrivals=3):
        self.arrivals = arrivals
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        plan = None
        while plan is None:
            beds, arrivals = self._draw(rng)
            plan = self._plan(beds, arrivals)
        self.tables = {
            "beds": {"columns": {"bed_id": "TEXT", "dorm": "TEXT", "occupant": "TEXT", "nights_left": "INTEGER",
                                 "status": "TEXT"}, "primary_key": "bed_id", "rows": beds},
            "arrivals": {"columns": {"arrival_no": "INTEGER", "guest": "TEXT", "dorm": "TEXT", "nights": "INTEGER",
                                     "checked_in": "INTEGER"}, "primary_key": "arrival_no", "rows": arrivals},
        }
        dorms = sorted({b["dorm"] for b in beds})
        self.episode = ToolEpisode(self._toolbox, plan, self._task(dorms, len(arrivals)),
                                   max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _draw(self, rng):
        dorms = rng.sample(DORMS, 2)
        names = rng.sample(GUESTS, 14)
        beds = []
        for d_index, dorm in enumerate(dorms):
            for k in range(4):
                bed_id = f"{dorm[0]}{d_index + 1}{k + 1}"
                roll = rng.random()
                if roll < 0.55:
                    beds.append({"bed_id": bed_id, "dorm": dorm, "occupant": names.pop(), "nights_left":
                                 rng.randint(1, 4), "status": "occupied"})
                else:
                    beds.append({"bed_id": bed_id, "dorm": dorm, "occupant": None, "nights_left": None,
                                 "status": "cleaning" if roll < 0.75 else "ready"})
        arrivals = []
        for n in range(self.arrivals):
            dorm = dorms[0] if (self.arrivals >= 4 and n < 2) else rng.choice(dorms)
            arrivals.append({"arrival_no": n + 1, "guest": names.pop(), "dorm": dorm, "nights": rng.randint(1, 5),
                             "checked_in": 0})
        return beds, arrivals

    def _plan(self, beds, arrivals):
        calls = [{"name": "select", "arguments": {"table": "beds"}},
                 {"name": "select", "arguments": {"table": "arrivals"}}]
        board = {b["bed_id"]: dict(b) for b in beds}
        if any(b["status"] == "cleaning" for b in board.values()):
            calls.append({"name": "update", "arguments": {"table": "beds", "values": {"status": "ready"}, "where": [
                {"column": "status", "op": "=", "value": "cleaning"}]}})
            for b in board.values():
                if b["status"] == "cleaning":
                    b["status"] = "ready"
        for bid in sorted(board):
            b = board[bid]
            if b["status"] != "occupied":
                continue
            left = b["nights_left"] - 1
            values = {"nights_left": left} if left else {"occupant": None, "nights_left": None, "status": "cleaning"}
            b.update(values)
            calls.append({"name": "update", "arguments": {"table": "beds", "values": values, "where": [
                {"column": "bed_id", "op": "=", "value": bid}]}})
        for a in arrivals:
            free = sorted(k for k, b in board.items() if b["dorm"] == a["dorm"] and b["status"] == "ready")
            if not free:
                return None
            bid = free[0]
            values = {"occupant": a["guest"], "nights_left": a["nights"], "status": "occupied"}
            board[bid].update(values)
            calls.append({"name": "update", "arguments": {"table": "beds", "values": values, "where": [
                {"column": "bed_id", "op": "=", "value": bid}]}})
            calls.append({"name": "update", "arguments": {"table": "arrivals", "values": {"checked_in": 1},
                                                          "where": [{"column": "arrival_no", "op": "=",
                                                                     "value": a["arrival_no"]}]}})
        return calls

    def _task(self, dorms, count):
        return (
            f"The hostel has two dorms, {dorms[0]} and {dorms[1]}, and {count} guest(s) arrive today. "
            "Run this morning's bed-board routine on tables 'beds' and 'arrivals', in this order. 1) Housekeeping: "
            "every bed whose status is 'cleaning' becomes 'ready'. 2) Every 'occupied' bed loses one night "
            "(nights_left - 1); a bed that reaches 0 checks out: occupant and nights_left become null and status "
            "'cleaning' (it is not re-let today). 3) Check in the arrivals in arrival_no order: each guest gets the "
            "'ready' bed with the smallest bed_id in their dorm: set occupant to the guest, nights_left to their "
            "nights and status 'occupied', and set checked_in to 1 on the arrival. Every cell is compared with the "
            "expected tables, so change nothing else."
        )

    def _toolbox(self):
        return SqlDatabase(self.tables)

    def _cells_off(self):
        final = self.episode.box.snapshot()["sqlite"]["tables"]
        target = self.episode.target["sqlite"]["tables"]
        off = 0
        for name, table in target.items():
            got = {json_key(r): r for r in final.get(name, {}).get("rows", [])}
            want = {json_key(r): r for r in table["rows"]}
            for key in set(got) | set(want):
                a, b = got.get(key), want.get(key)
                if a is None or b is None:
                    off += len(table["columns"])
                else:
                    off += sum(1 for x, y in zip(a, b) if x != y)
        return off

    def step(self, action):
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if terminated or truncated:
            off = self._cells_off()
            info["cells_off"] = off
            if off:
                obs = f"{obs}\n{off} cell(s) differ from the expected tables."
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Do the three phases strictly in order: a bed freed in phase 2 is "
                f"not 'ready' for phase 3, and each check-in changes which bed is smallest for the next guest.")

    def reference_action(self):
        return self.episode.reference_action()


def json_key(row):
    return str(row[0])
