# shape: irrelevance inside a multi-request session: three requests need lookups + writes, the restaurant booking ...
"""Tables: a personal-assistant session with several requests; one of them (booking a restaurant table) is beyond
the tools and must get no tool action at all, while the others need look-ups before writes."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "AssistantSessionIrrelevant",
    "domain": "tool_use",
    "description": "A multi-request assistant session over a contacts/outbox/reminders database: message every "
                   "member of a group, fix one contact's e-mail (two contacts share the first name), add a reminder, "
                   "and leave alone the one request no tool can do (there is a tempting contact for it). Scored by "
                   "the final tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "members": {"min": 2, "max": 7, "default": 3,
                    "description": "members of the group to message (one outbox row each); from 4 a former member "
                                   "with group 'left-<group>' is listed too and must not be messaged"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "BFCL irrelevance detection inside a multi-turn session: when no function can serve a request, "
                 "the right output is no call, not a lookalike call.",
    "tags": ["sql", "irrelevance", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

FIRST = ["Sam", "Alex", "Robin", "Jo", "Kim", "Lee", "Max", "Noa", "Pat", "Ray", "Sky", "Tia", "Val", "Wen"]
LAST = ["Adler", "Brandt", "Costa", "Dube", "Ekman", "Ferrer", "Gallo", "Hoshi", "Ivanova", "Jansen", "Kaur"]
GROUPS = ["book club", "climbing", "choir", "allotment", "five-a-side"]
PLACES = ["the library annex", "Cafe Nord", "room 4B", "the boathouse", "Ada's flat"]
RESTAURANTS = ["Luigi's Trattoria", "Saffron House", "The Copper Pot", "Hanami Sushi"]


class AssistantSessionIrrelevant:
    def __init__(self, members=3):
        self.members = members
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        m = self.members
        group, other = rng.sample(GROUPS, 2)
        people = []
        used = set()
        while len(people) < m + 5:
            f, last = rng.choice(FIRST), rng.choice(LAST)
            if (f, last) not in used:
                used.add((f, last))
                people.append((f, last))
        contacts = []
        for i, (f, last) in enumerate(people):
            g = group if i < m else (f"left-{group}" if (m >= 4 and i == m) else rng.choice([other, ""]))
            contacts.append({"id": i + 1, "name": f"{f} {last}", "phone": f"+44 7{rng.randint(100000000, 999999999)}",
                             "email": f"{f.lower()}.{last.lower()}@example.org", "grp": g})
        # two contacts share the first name of the one to fix
        target = contacts[m + 1]
        twin_first = target["name"].split()[0]
        twin_last = rng.choice([x for x in LAST if x != target["name"].split()[1]])
        twin = {"id": len(contacts) + 1, "name": f"{twin_first} {twin_last}",
                "phone": f"+44 7{rng.randint(100000000, 999999999)}",
                "email": f"{twin_first.lower()}.{twin_last.lower()}@example.org", "grp": other}
        contacts.append(twin)
        restaurant = rng.choice(RESTAURANTS)
        contacts.append({"id": len(contacts) + 1, "name": restaurant, "phone": f"+44 20{rng.randint(10000000, 99999999)}",
                         "email": "", "grp": "places"})
        rng.shuffle(contacts)
        new_email = f"{twin_first.lower()}{rng.randint(10, 99)}@mailbox.test"
        place = rng.choice(PLACES)
        day = f"2025-10-{rng.randint(10, 28):02d}"
        hour = rng.choice(["18:30", "19:00", "19:30"])
        self.tables = {
            "contacts": {"columns": {"id": "INTEGER", "name": "TEXT", "phone": "TEXT", "email": "TEXT",
                                     "grp": "TEXT"}, "primary_key": "id", "rows": contacts},
            "outbox": {"columns": {"to_phone": "TEXT", "body": "TEXT"}, "rows": []},
            "reminders": {"columns": {"day": "TEXT", "time": "TEXT", "text": "TEXT"}, "rows": []},
        }
        body = f"The {group} meeting on {day} moves to {place}."
        members = [c for c in contacts if c["grp"] == group]
        ref = [{"name": "select", "arguments": {"table": "contacts", "where": [{"column": "grp", "op": "=",
                                                                                "value": group}]}}]
        ref.append({"name": "insert", "arguments": {"table": "outbox", "rows": [
            {"to_phone": c["phone"], "body": body} for c in sorted(members, key=lambda c: c["id"])]}})
        ref.append({"name": "select", "arguments": {"table": "contacts", "where": [
            {"column": "name", "op": "like", "value": f"{twin_first} %"}]}})
        ref.append({"name": "update", "arguments": {"table": "contacts", "values": {"email": new_email},
                                                    "where": [{"column": "id", "op": "=", "value": target["id"]}]}})
        ref.append({"name": "insert", "arguments": {"table": "reminders", "rows": [
            {"day": day, "time": hour, "text": f"{group} at {place}"}]}})
        task = (f"Four things, please. (1) Text every current member of my '{group}' group (the 'grp' column) this "
                f"exact message, one outbox row per member with their phone number: \"{body}\" "
                f"(2) {target['name']}'s new e-mail is {new_email}; update their contact (only theirs). "
                f"(3) Add a reminder for {day} at {hour} with the text \"{group} at {place}\". "
                f"(4) Book me a table for two at {restaurant} that evening. "
                f"Use the tools only for what they can really do; do not stand in for a missing capability with a "
                f"message or a reminder. Change nothing else.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase(tables=self.tables)

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Filter the group by exact equality (former members carry a "
                f"different label) and update the contact by id after checking the full name; one request has no "
                f"tool, so it gets no write at all and is simply declined in your final answer.")

    def reference_action(self):
        return self.episode.reference_action()
