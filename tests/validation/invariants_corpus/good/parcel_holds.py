# expect: accepted
"""SQL table: send back the parcels whose hold period at the pickup point has run out."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "ParcelHoldExpiry",
    "domain": "tool_use",
    "description": "A pickup point keeps parcels for a number of days that depends on their size class; find the "
                   "parcels held past their limit and mark them for return, using SQL table tools; scored by the "
                   "final tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "parcels": {"min": 5, "max": 18, "default": 9,
                    "description": "parcels on the shelf; from 9 some are already collected, from 13 a size class "
                                   "with a hold period shorter than the others"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Parcel pickup points hold an uncollected parcel for a fixed number of days, then return it to "
                 "the sender; collected parcels are never returned.",
    "tags": ["sql", "logistics", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

SIZES = ["S", "M", "L", "XL"]
NAMES = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Novak", "Silva", "Brennan", "Kowalski", "Ito",
         "Adeyemi", "Ferreira", "Dubois", "Nakamura", "Rossi", "Petrov", "Yilmaz", "Oduya", "Larsen", "Quispe"]


class ParcelHoldExpiry:
    def __init__(self, parcels=9):
        self.parcels = parcels
        self.tables = {}
        self.today = 0
        self.expired = []
        self.episode = None

    def reset(self, rng, options):
        count = self.parcels
        self.today = rng.randint(40, 300)
        base = rng.randint(5, 9)
        rules = {size: base + rng.randint(0, 6) for size in SIZES}
        if count >= 13:
            rules[rng.choice(SIZES)] = rng.randint(2, 4)
        rows = []
        names = rng.sample(NAMES, count)
        number = rng.randint(1000, 8000)
        for i in range(count):
            number = number + rng.randint(1, 40)
            size = rng.choice(SIZES)
            age = rng.randint(0, rules[size] * 2)
            status = "held"
            if count >= 9 and rng.random() < 0.25:
                status = "collected"
            rows.append({"parcel_id": f"P{number}", "recipient": names[i],
                         "size": size, "arrived_day": self.today - age, "status": status})
        expired = [r for r in rows if r["status"] == "held" and self.today - r["arrived_day"] > rules[r["size"]]]
        if not expired:
            held = [r for r in rows if r["status"] == "held"] or rows
            pick = rng.choice(held)
            pick["status"] = "held"
            pick["arrived_day"] = self.today - rules[pick["size"]] - rng.randint(1, 5)
            expired = [pick]
        self.expired = sorted(r["parcel_id"] for r in expired)
        self.tables = {
            "parcels": {"columns": {"parcel_id": "TEXT", "recipient": "TEXT", "size": "TEXT",
                                    "arrived_day": "INTEGER", "status": "TEXT"},
                        "primary_key": "parcel_id", "rows": rows},
            "hold_rules": {"columns": {"size": "TEXT", "hold_days": "INTEGER"}, "primary_key": "size",
                           "rows": [{"size": s, "hold_days": d} for s, d in rules.items()]},
        }
        reference = [
            {"name": "select", "arguments": {"table": "hold_rules"}},
            {"name": "select", "arguments": {"table": "parcels", "where": [
                {"column": "status", "op": "=", "value": "held"}]}},
            {"name": "update", "arguments": {"table": "parcels", "values": {"status": "return_to_sender"},
                                             "where": [{"column": "parcel_id", "op": "in", "value": self.expired}]}},
        ]
        task = (
            f"You run the parcel pickup point. Today is day {self.today} (days are numbered; 'arrived_day' in the "
            f"parcels table uses the same numbering). A parcel with status 'held' may stay on the shelf for the "
            f"number of days its size class allows (table hold_rules); a held parcel whose age (today minus "
            f"arrived_day) is strictly greater than that limit must get status 'return_to_sender'. Collected "
            f"parcels stay as they are. Change nothing else in any table."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase(self.tables)

    def _judge(self, final):
        return final == self.episode.target

    def step(self, action):
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if terminated or truncated:
            solved = self._judge(self.episode.box.snapshot())
            info["success"] = solved
            reward = 1.0 if solved else 0.0
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Compare each held parcel's age with the limit of its own size "
                f"class; an age equal to the limit is still allowed.")

    def reference_action(self):
        return self.episode.reference_action()
