# shape: unit conversion through the calculator (lb+oz -> kg, USD -> EUR at the day's rate) before inserting ...
"""Tables + calculator: convert imperial parcel weights (lb/oz) to kilograms and USD values to euros before writing a
customs declaration row for each parcel not yet declared."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calculator import Calculator
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "CustomsWeightConversion",
    "domain": "tool_use",
    "description": "Parcels arrive with weights in pounds and ounces and values in US dollars; the customs table "
                   "needs kilograms (3 decimals) and euros (2 decimals) at the day's rate from a rates table. The "
                   "agent converts with the calculator and inserts one declaration per undeclared parcel.",
    "reward_range": [0.0, 1.0],
    "max_turns": 36,
    "players": 1,
    "difficulty": {
        "parcels": {"min": 2, "max": 7, "default": 4,
                    "description": "parcels in the manifest; from 4 one is already declared and must be skipped, "
                                   "from 5 the rates table holds an older rate for another day too"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete", "calculate"],
    "grounding": "Customs declarations (CN22/CN23) in metric units: 1 lb = 0.45359237 kg exactly, 1 oz = 1/16 lb; "
                 "declared values converted to the destination currency at the day's rate.",
    "tags": ["sql", "calculator", "unit-conversion", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

CONTENTS = ["books", "ceramic mug", "wool scarf", "camera lens", "vinyl records", "tea samples", "bike parts",
            "board game", "leather belt"]
LB = 0.45359237


class CustomsWeightConversion:
    def __init__(self, parcels=4):
        self.parcels = parcels
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        n = self.parcels
        day = f"2025-11-{rng.randint(3, 27):02d}"
        rate = round(rng.randint(8800, 9600) / 10000, 4)
        rates = [{"day": day, "usd_to_eur": rate}]
        if n >= 5:
            rates.append({"day": f"2025-10-{rng.randint(3, 27):02d}", "usd_to_eur": round(rate + 0.0173, 4)})
        rng.shuffle(rates)
        manifest = []
        declared = []
        ref = [{"name": "select", "arguments": {"table": "manifest"}},
               {"name": "select", "arguments": {"table": "declarations"}},
               {"name": "select", "arguments": {"table": "rates", "where": [{"column": "day", "op": "=",
                                                                             "value": day}]}}]
        rows = []
        skip = rng.randrange(n) if n >= 4 else -1
        for i, what in enumerate(rng.sample(CONTENTS, n)):
            pid = f"P{rng.randint(1000, 9999)}{i}"
            lb = rng.randint(0, 14)
            oz = rng.randint(1, 15)
            usd = round(rng.randint(1500, 45000) / 100, 2)
            manifest.append({"parcel": pid, "contents": what, "weight_lb": lb, "weight_oz": oz, "value_usd": usd})
            kg = round((lb + oz / 16) * LB, 3)
            eur = round(usd * rate, 2)
            if i == skip:
                declared.append({"parcel": pid, "kg": kg, "value_eur": eur, "day": day})
                continue
            ref.append({"name": "calculate", "arguments": {"expression": f"round(({lb} + {oz}/16) * {LB}, 3)"}})
            ref.append({"name": "calculate", "arguments": {"expression": f"round({usd} * {rate}, 2)"}})
            rows.append({"parcel": pid, "kg": kg, "value_eur": eur, "day": day})
        ref.append({"name": "insert", "arguments": {"table": "declarations", "rows": rows}})
        self.tables = {
            "manifest": {"columns": {"parcel": "TEXT", "contents": "TEXT", "weight_lb": "INTEGER",
                                     "weight_oz": "INTEGER", "value_usd": "REAL"}, "primary_key": "parcel",
                         "rows": manifest},
            "rates": {"columns": {"day": "TEXT", "usd_to_eur": "REAL"}, "primary_key": "day", "rows": rates},
            "declarations": {"columns": {"parcel": "TEXT", "kg": "REAL", "value_eur": "REAL", "day": "TEXT"},
                             "primary_key": "parcel", "rows": declared},
        }
        task = (f"Declare today's ({day}) parcels for customs. For every parcel in 'manifest' that has no row in "
                f"'declarations' yet, insert one declarations row: parcel id, kg = its weight (weight_lb pounds plus "
                f"weight_oz ounces; 1 lb = 0.45359237 kg, 16 oz = 1 lb) rounded to 3 decimals, value_eur = value_usd "
                f"times the usd_to_eur rate of {day} from the 'rates' table, rounded to 2 decimals, and day = "
                f"'{day}'. Use the calculator for the arithmetic. Leave existing declarations as they are and change "
                f"nothing else.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Toolbox(SqlDatabase(tables=self.tables), Calculator())

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Convert pounds and ounces together before rounding (round once, "
                f"at the end), and take the rate of the right day; a parcel already declared gets no new row.")

    def reference_action(self):
        return self.episode.reference_action()
