# shape: final-state check of a ticket system (SLA sheet and on-call roster files; breached tickets escalated one level each)
"""Table + files: escalate open support tickets that breached their SLA, per the SLA sheet and on-call roster."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "EscalateSlaBreaches",
    "domain": "tool_use",
    "description": "Read the SLA sheet and the on-call roster from files, query the tickets table, and escalate "
                   "every open ticket older than its priority's SLA (raise the priority one level, assign the "
                   "on-call engineer, set status escalated); scored by the final ticket table.",
    "reward_range": [0.0, 1.0],
    "max_turns": 18,
    "players": 1,
    "difficulty": {
        "tickets": {"min": 4, "max": 16, "default": 8,
                    "description": "tickets in the table; more breaches across more priorities (one update per "
                                   "priority level); from 8 closed tickets that are old but must not move, "
                                   "from 12 a ticket exactly at its SLA (not a breach)"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "IT service management (ITIL-style) SLAs: each priority has a response window; a ticket older "
                 "than its window is a breach and is escalated to the on-call engineer with a higher priority.",
    "tags": ["sqlite", "filesystem", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

CUSTOMERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell", "Cyberdyne", "Soylent"]
ENGINEERS = ["priya", "tomas", "wei", "lucia", "jamal", "anke", "ravi"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
LEVELS = ["P1", "P2", "P3", "P4"]


class EscalateSlaBreaches:
    def __init__(self, tickets=8):
        self.tickets = tickets
        self.rows = []
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        count = self.tickets
        sla = {"P1": rng.choice([2, 4]), "P2": rng.choice([6, 8, 12]), "P3": rng.choice([24, 36]),
               "P4": rng.choice([48, 72])}
        today = rng.choice(WEEKDAYS)
        roster = {d: rng.choice(ENGINEERS) for d in WEEKDAYS}
        oncall = roster[today]
        now = rng.randint(200, 400)  # hours since the queue was opened
        self.rows = []
        ids = rng.sample(range(1000, 9999), count)
        for i in range(count):
            level = rng.choice(LEVELS)
            age = rng.randint(0, 2 * sla[level])
            if i == 0:
                age = sla[level] + rng.randint(1, 5)  # at least one breach
            if count >= 12 and i == 1:
                age = sla[level]
            status = "open"
            if count >= 8 and i in (2, 3):
                status = "closed"
                age = sla[level] + rng.randint(5, 40)
            assignee = rng.choice([e for e in ENGINEERS if e != oncall])
            self.rows.append({"id": f"T-{ids[i]}", "customer": rng.choice(CUSTOMERS), "priority": level,
                              "opened_hour": now - age, "status": status, "assignee": assignee})
        rng.shuffle(self.rows)
        sla_text = "".join(f"{lv}: respond within {sla[lv]} hours\n" for lv in LEVELS)
        roster_text = "".join(f"{d}: {roster[d]}\n" for d in WEEKDAYS)
        self.tree = {"support": {"sla.txt": "# SLA by priority\n" + sla_text,
                                 "oncall.txt": "# on-call engineer by weekday\n" + roster_text,
                                 "handbook.md": "Escalate breaches to the on-call engineer of the day."}}
        reference = [
            {"name": "cat", "arguments": {"file_name": "/support/sla.txt"}},
            {"name": "cat", "arguments": {"file_name": "/support/oncall.txt"}},
            {"name": "select", "arguments": {"table": "tickets", "where": [
                {"column": "status", "op": "=", "value": "open"}]}},
        ]
        for lv in LEVELS:
            hit = sorted(r["id"] for r in self.rows
                         if r["status"] == "open" and r["priority"] == lv and now - r["opened_hour"] > sla[lv])
            if hit:
                raised = LEVELS[max(0, LEVELS.index(lv) - 1)]
                reference.append({"name": "update", "arguments": {
                    "table": "tickets", "values": {"priority": raised, "assignee": oncall, "status": "escalated"},
                    "where": [{"column": "id", "op": "in", "value": hit}]}})
        task = (
            f"It is {today}; the current time is hour {now} of the ticket clock (the 'opened_hour' column uses "
            f"the same clock, so a ticket's age is {now} - opened_hour). The SLA per priority is in "
            f"/support/sla.txt and the on-call roster in /support/oncall.txt. Escalate every ticket in table "
            f"'tickets' whose status is 'open' and whose age is strictly greater than its priority's SLA: raise "
            f"its priority by one level (P4->P3, P3->P2, P2->P1; P1 stays P1), assign it to today's on-call "
            f"engineer, and set its status to 'escalated'. Do not touch any other ticket or column, and do not "
            f"change the files."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        db = SqlDatabase(tables={"tickets": {
            "columns": {"id": "TEXT", "customer": "TEXT", "priority": "TEXT", "opened_hour": "INTEGER",
                        "status": "TEXT", "assignee": "TEXT"},
            "primary_key": "id", "rows": [dict(r) for r in self.rows]}})
        return Toolbox(db, FileSystem(self.tree, cwd="/support"))

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Compute each open ticket's age against its own priority's "
                f"window (strictly greater breaches); update one priority level at a time, since each level is "
                f"raised differently.")

    def reference_action(self):
        return self.episode.reference_action()
