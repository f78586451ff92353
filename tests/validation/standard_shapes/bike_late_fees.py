# shape: the final answer is reported through a finishing tool call with an argument (finish(answer=total)), checked together with the final state
"""SQL + calculator: settle a bike-rental desk's returned rentals and report the late fees charged."""

import json
import math
import re

from spade_domains.tool_use.actions import parse_tool_calls
from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calculator import Calculator
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "BikeRentalLateFees",
    "domain": "tool_use",
    "description": "A bike-rental desk's rentals and rate card are SQL tables. Work out the late fee of every "
                   "returned rental (started half-hours beyond the included time, capped per bike type), settle "
                   "those rentals, and finish with the total of the fees charged as the answer; scored by the "
                   "final tables and the reported total.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "returns": {"min": 2, "max": 8, "default": 4,
                    "description": "returned rentals to settle; from 3 one comes back exactly at the included time, "
                                   "from 5 one hits its bike type's cap"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete", "calculate"],
    "grounding": "Rental late fees: included time, charging per started 30 minutes, a daily cap per bike type, "
                 "and reporting the day's total.",
    "tags": ["sql", "calculator", "multi-turn", "final-answer"],
    "max_obs_chars": 16000,
}

TYPES = ["city", "e-bike", "cargo", "tandem", "kids"]


def clock(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def euros(cents):
    return cents // 100 if cents % 100 == 0 else cents / 100


class BikeRentalLateFees:
    def __init__(self, returns=4):
        self.returns = returns
        self.tables = {}
        self.total_cents = 0
        self.episode = None

    def reset(self, rng, options):
        kinds = rng.sample(TYPES, 3)
        rates = {}
        for kind in kinds:
            rates[kind] = {"included_minutes": rng.choice([60, 90, 120, 180]),
                           "fee_per_started_30": rng.choice([150, 200, 250, 350, 400, 450]),
                           "daily_cap": rng.choice([1200, 1500, 1800, 2500])}
        rentals = []
        ids = rng.sample(range(1000, 9999), self.returns + 3)
        fees = {}
        for k, rid in enumerate(ids):
            kind = rng.choice(kinds)
            out = rng.randint(8 * 4, 13 * 4) * 15
            if k < self.returns:
                extra = rng.choice([-25, -5, 10, 29, 30, 31, 55, 75, 100, 140] if k else [10, 31, 55, 75, 100])
                if self.returns >= 3 and k == 1:
                    extra = 0
                if self.returns >= 5 and k == 2:
                    extra = 300 + rng.randint(0, 60)
                minutes = rates[kind]["included_minutes"] + extra
                over = max(0, minutes - rates[kind]["included_minutes"])
                fee = min(rates[kind]["daily_cap"], math.ceil(over / 30) * rates[kind]["fee_per_started_30"])
                fees[f"R{rid}"] = fee
                rentals.append({"rental_id": f"R{rid}", "bike_type": kind, "out_time": clock(out),
                                "in_time": clock(out + minutes), "late_fee": None, "status": "returned"})
            elif k == self.returns:
                rentals.append({"rental_id": f"R{rid}", "bike_type": kind, "out_time": clock(out), "in_time": None,
                                "late_fee": None, "status": "out"})
            else:
                rentals.append({"rental_id": f"R{rid}", "bike_type": kind, "out_time": clock(out),
                                "in_time": clock(out + 200), "late_fee": euros(rng.randint(1, 8) * 100),
                                "status": "settled"})
        rng.shuffle(rentals)
        self.total_cents = sum(fees.values())
        self.tables = {
            "rates": {"columns": {"bike_type": "TEXT", "included_minutes": "INTEGER", "fee_per_started_30": "REAL",
                                  "daily_cap": "REAL"}, "primary_key": "bike_type",
                      "rows": [{"bike_type": k, "included_minutes": v["included_minutes"],
                                "fee_per_started_30": euros(v["fee_per_started_30"]),
                                "daily_cap": euros(v["daily_cap"])} for k, v in rates.items()]},
            "rentals": {"columns": {"rental_id": "TEXT", "bike_type": "TEXT", "out_time": "TEXT", "in_time": "TEXT",
                                    "late_fee": "REAL", "status": "TEXT"}, "primary_key": "rental_id",
                        "rows": rentals},
        }
        reference = [{"name": "select", "arguments": {"table": "rates"}},
                     {"name": "select", "arguments": {"table": "rentals", "where": [
                         {"column": "status", "op": "=", "value": "returned"}]}}]
        for rid in sorted(fees):
            reference.append({"name": "update", "arguments": {"table": "rentals", "values": {
                "late_fee": euros(fees[rid]), "status": "settled"}, "where": [
                {"column": "rental_id", "op": "=", "value": rid}]}})
        desk = rng.choice(["Harbour", "Station", "Old Town", "Campus", "Riverside"])
        task = (
            f"You close the day at the {desk} desk; {self.returns} rentals came back today. "
            "Settle every rental in table 'rentals' whose status is 'returned'. Its rental time is in_time minus "
            "out_time (same day). Look up its bike_type in 'rates': time up to included_minutes is free; each "
            "started 30 minutes beyond that costs fee_per_started_30 (1 minute over counts as a started half-hour), "
            "and the fee never exceeds daily_cap. Set late_fee to that fee (0 if none) and status to 'settled'. "
            "Change no other rows. Then finish with the total of the late fees you set, in euros, as the answer: "
            '{"name": "finish", "arguments": {"answer": "<total>"}}.'
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Toolbox(SqlDatabase(self.tables), Calculator())

    def _answer_ok(self, text):
        numbers = re.findall(r"-?\d+(?:[.,]\d+)?", (text or "").replace("\u20ac", " "))
        if len(numbers) != 1:
            return False
        value = numbers[0].replace(",", ".")
        whole, _, frac = value.partition(".")
        if len(frac) > 2 and frac[2:].strip("0"):
            return False
        cents = int(whole.lstrip("-") or "0") * 100 + int((frac + "00")[:2])
        return not value.startswith("-") and cents == self.total_cents

    def step(self, action):
        final = parse_tool_calls(action, self.episode.schemas)["final"] if isinstance(action, str) else None
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if terminated or truncated:
            state_ok = self.episode.state_matches()
            answer_ok = self._answer_ok(final)
            info["success"] = state_ok and answer_ok
            reward = 1.0 if info["success"] else 0.0
            if state_ok and not answer_ok:
                obs = obs.rsplit("\n", 1)[0] + "\nThe tables are right, but the reported total is not."
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Convert both clock times to minutes; exactly the included time is "
                f"free, and the cap applies to the fee, not to the minutes.")

    def reference_action(self):
        if self.episode.progress() >= 1.0:
            return json.dumps({"name": "finish", "arguments": {"answer": f"{self.total_cents / 100:.2f}"}})
        return self.episode.reference_action()
