# shape: ordered first-fit scheduling with a join (servers by patch policy tier) and date arithmetic across month ends
"""Table + calendar: schedule patch windows for servers overdue under their tier's policy, first-fit by host name."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "ScheduleOverduePatches",
    "domain": "tool_use",
    "description": "Join a servers table with a per-tier patch policy (maximum days since last patch, window "
                   "length), then book a maintenance event for every overdue server on the maintenance day at "
                   "the earliest free time, hosts in alphabetical order, and record the date in the table; "
                   "scored by the final calendar and table.",
    "reward_range": [0.0, 1.0],
    "max_turns": 28,
    "players": 1,
    "difficulty": {
        "servers": {"min": 3, "max": 12, "default": 6,
                    "description": "servers in the inventory; more overdue hosts to book one after another; "
                                   "from 6 a server patched exactly max_age days ago (not overdue), from 9 "
                                   "dates across a month boundary"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Patch management policy: each server tier (web, db, cache, batch) must be patched within a "
                 "maximum number of days, in a maintenance window of the tier's length.",
    "tags": ["calendar", "sqlite", "multi-turn", "state-equality", "ordering"],
    "max_obs_chars": 16000,
}

TIERS = ["web", "db", "cache", "batch"]
PREFIX = ["alpha", "bravo", "delta", "echo", "kilo", "lima", "nova", "oscar", "romeo", "sierra", "tango", "zulu"]
MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
BUSY = ["Change board", "Backup verification", "Vendor call", "Ops standup", "Capacity review"]


def _ordinal(date):
    y, m, d = (int(p) for p in date.split("-"))
    return sum(MONTH_DAYS[:m - 1]) + d


def _date(ordinal):
    m = 0
    while ordinal > MONTH_DAYS[m]:
        ordinal -= MONTH_DAYS[m]
        m += 1
    return f"2025-{m + 1:02d}-{ordinal:02d}"


def _hm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class ScheduleOverduePatches:
    def __init__(self, servers=6):
        self.servers = servers
        self.policy = []
        self.rows = []
        self.events = []
        self.day = "2025-06-10"
        self.episode = None

    def reset(self, rng, options):
        count = self.servers
        today = rng.randint(60, 300) if count < 9 else rng.choice([60, 91, 121, 152, 182, 213, 244, 274])
        today = today + rng.randint(0, 3)
        self.day = _date(today)
        policy = {t: {"max_age_days": rng.choice([7, 14, 21, 30]), "window_minutes": rng.choice([30, 45, 60])}
                  for t in TIERS}
        self.policy = [{"tier": t, **policy[t]} for t in TIERS]
        hosts = sorted(f"{p}-{rng.randint(1, 9)}" for p in rng.sample(PREFIX, count))
        self.rows = []
        overdue = []
        n_over = min(count, rng.randint(2, 4))
        over_idx = set(rng.sample(range(count), n_over))
        exact_idx = rng.choice([i for i in range(count) if i not in over_idx]) if count >= 6 else -1
        for i, host in enumerate(hosts):
            tier = rng.choice(TIERS)
            limit = policy[tier]["max_age_days"]
            if i in over_idx:
                age = limit + rng.randint(1, 20)
                overdue.append((host, tier))
            elif i == exact_idx:
                age = limit
            else:
                age = rng.randint(0, limit - 1)
            self.rows.append({"host": host, "tier": tier, "last_patched": _date(today - age), "next_patch": None})
        rng.shuffle(self.rows)
        self.events = []
        t = 9 * 60 + rng.choice([0, 15, 30])
        while True:
            length = rng.choice([30, 45, 60])
            if t + length > 12 * 60:
                break
            self.events.append({"title": rng.choice(BUSY), "day": self.day, "start": _hm(t), "end": _hm(t + length)})
            t += length + rng.choice([15, 30, 45, 60, 75])
        self.events.append({"title": "Ops standup", "day": _date(today + 1), "start": "09:00", "end": "09:15"})
        scratch = self._toolbox()
        reference = [{"name": "select", "arguments": {"table": "patch_policy"}},
                     {"name": "select", "arguments": {"table": "servers"}}]
        for host, tier in sorted(overdue):
            minutes = policy[tier]["window_minutes"]
            slot = scratch.call("find_free_slot", {"day": self.day, "duration_minutes": minutes})
            add = {"name": "add_event", "arguments": {"title": f"Patch {host}", "day": self.day,
                                                      "start": slot["start"], "duration_minutes": minutes}}
            scratch.call("add_event", add["arguments"])
            reference.append({"name": "find_free_slot", "arguments": {"day": self.day, "duration_minutes": minutes}})
            reference.append(add)
        reference.append({"name": "update", "arguments": {"table": "servers", "values": {"next_patch": self.day},
                                                          "where": [{"column": "host", "op": "in",
                                                                     "value": sorted(h for h, _ in overdue)}]}})
        task = (
            f"Today, {self.day}, is maintenance day. A server is overdue when the number of days from its "
            f"'last_patched' date to today is strictly greater than its tier's max_age_days (table "
            f"'patch_policy'). For every overdue server in table 'servers', in alphabetical order of host name, "
            f"add a calendar event titled 'Patch <host>' today lasting its tier's window_minutes, at the earliest "
            f"time that is free when you book it (working hours 09:00-17:00, no overlaps). Then set 'next_patch' "
            f"to '{self.day}' for exactly those servers. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        db = SqlDatabase(tables={
            "servers": {"columns": {"host": "TEXT", "tier": "TEXT", "last_patched": "TEXT", "next_patch": "TEXT"},
                        "primary_key": "host", "rows": [dict(r) for r in self.rows]},
            "patch_policy": {"columns": {"tier": "TEXT", "max_age_days": "INTEGER", "window_minutes": "INTEGER"},
                             "primary_key": "tier", "rows": [dict(r) for r in self.policy]},
        })
        return Toolbox(db, Calendar(events=[dict(e) for e in self.events]))

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Count days across month ends carefully; book hosts strictly in "
                f"name order, searching for the slot again after each booking since every booking fills time.")

    def reference_action(self):
        return self.episode.reference_action()
