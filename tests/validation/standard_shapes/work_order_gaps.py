# shape: missing information: carry out the requests that can be done, and report (in finish's answer) the ones the data cannot support instead of guessing
"""SQL tables + file system: apply a building manager's work-order requests; report the ones that cannot be done."""

import json
import re

from spade_domains.tool_use.actions import parse_tool_calls
from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "WorkOrderRequestGaps",
    "domain": "tool_use",
    "description": "Apply a list of maintenance requests to a work-order table (assign a technician, close an "
                   "order, raise its priority); requests whose unit has no open order, several open orders, or a "
                   "technician not on the roster must be left undone and reported in finish's answer. Scored by "
                   "the final tables plus the reported request ids.",
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "requests": {"min": 3, "max": 8, "default": 5,
                     "description": "requests in the file; always one unit without an open order, from 4 a "
                                    "technician missing from the roster, from 5 a unit with two open orders"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep",
              "list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Property maintenance desks: tenants' repair requests become work orders with a status, a "
                 "priority and an assigned technician; a request that does not match exactly one open order "
                 "goes back to the manager rather than being guessed.",
    "tags": ["sql", "filesystem", "missing-information", "final-answer", "state-equality"],
    "max_obs_chars": 16000,
}

ISSUES = ["leaking tap", "broken intercom", "no hot water", "stuck window", "faulty light", "blocked drain",
          "door lock", "radiator cold", "mould in bathroom", "loose handrail"]
TECHS = ["Ortega", "Bauer", "Mensah", "Kowalski", "Ferreira", "Nakamura", "Byrne", "Salo", "Achebe", "Lund"]
TRADES = ["plumbing", "electrical", "joinery", "heating", "general"]
BUILDINGS = ["Harbour View", "Linden Court", "Mill House", "Oak Terrace", "Riverside Flats", "Station Yard",
             "The Maltings", "Quarry Lofts", "Elm Gardens", "Canal Wharf"]
MANAGERS = ["Ms Adeyemi", "Mr Holt", "Ms Varga", "Mr Ito", "Ms Duarte", "Mr Quinn", "Ms Berg", "Mr Osei"]
UNRESOLVED_ID = re.compile(r"(?i)\bREQ[- ]?(\d+)\b")


class WorkOrderGaps:
    def __init__(self, requests=5):
        self.requests = requests
        self.tables = {}
        self.request_text = ""
        self.unresolved = []
        self.episode = None

    def _toolbox(self):
        return Toolbox(FileSystem({"office": {"requests.txt": self.request_text,
                                              "handbook.txt": "Only open work orders may be changed."}},
                                  cwd="/office"),
                       SqlDatabase(self.tables))

    def reset(self, rng, options):
        n = self.requests
        building = rng.choice(BUILDINGS)
        manager = rng.choice(MANAGERS)
        units = rng.sample([f"{floor}{letter}" for floor in range(1, 10) for letter in "ABCD"], n + 3)
        roster = rng.sample(TECHS, 5)
        outsiders = [t for t in TECHS if t not in roster]
        kinds = ["no_open"]
        if n >= 4:
            kinds.append("unknown_tech")
        if n >= 5:
            kinds.append("two_open")
        kinds = kinds + [rng.choice(["assign", "close", "priority"]) for _ in range(n - len(kinds))]
        rng.shuffle(kinds)
        if all(k in ("no_open", "unknown_tech", "two_open") for k in kinds):
            kinds[-1] = "close"
        ids = rng.sample(range(1000, 9999), 3 * n + 6)
        orders = []
        lines = []
        refs = []
        unresolved = []
        for i, kind in enumerate(kinds):
            req = f"REQ-{i + 1}"
            unit = units[i]
            opened = {"id": f"WO-{ids.pop()}", "unit": unit, "issue": rng.choice(ISSUES), "status": "open",
                      "technician": None, "priority": "normal"}
            if kind == "no_open":
                opened["status"] = "done"
                opened["technician"] = rng.choice(roster)
                orders.append(opened)
                verb = rng.choice(["close", "priority", "assign"])
            else:
                orders.append(opened)
                verb = kind if kind in ("assign", "close", "priority") else "assign"
                if kind == "two_open":
                    verb = rng.choice(["close", "priority"])
                    orders.append({"id": f"WO-{ids.pop()}", "unit": unit, "issue": rng.choice(ISSUES),
                                   "status": "open", "technician": None, "priority": "normal"})
            tech = rng.choice(outsiders if kind == "unknown_tech" else roster)
            if verb == "assign":
                lines.append(f"{req}: unit {unit} - assign the open work order to technician {tech}")
                values = {"technician": tech}
            elif verb == "close":
                lines.append(f"{req}: unit {unit} - the repair is finished, mark the open work order done")
                values = {"status": "done"}
            else:
                lines.append(f"{req}: unit {unit} - tenant is vulnerable, set the open work order's priority to high")
                values = {"priority": "high"}
            if kind in ("no_open", "unknown_tech", "two_open"):
                unresolved.append(req)
            else:
                refs.append({"name": "update", "arguments": {
                    "table": "work_orders", "values": values,
                    "where": [{"column": "id", "op": "=", "value": opened["id"]}]}})
        for unit in units[n:]:
            orders.append({"id": f"WO-{ids.pop()}", "unit": unit, "issue": rng.choice(ISSUES),
                           "status": rng.choice(["open", "done"]), "technician": rng.choice([None, *roster]),
                           "priority": rng.choice(["normal", "high"])})
        rng.shuffle(orders)
        self.tables = {
            "work_orders": {"columns": {"id": "TEXT", "unit": "TEXT", "issue": "TEXT", "status": "TEXT",
                                        "technician": "TEXT", "priority": "TEXT"},
                            "primary_key": "id", "rows": orders},
            "technicians": {"columns": {"name": "TEXT", "trade": "TEXT"}, "primary_key": "name",
                            "rows": [{"name": t, "trade": rng.choice(TRADES)} for t in roster]},
        }
        self.request_text = "\n".join(lines)
        self.unresolved = unresolved
        reference = [
            {"name": "cat", "arguments": {"file_name": "/office/requests.txt"}},
            {"name": "select", "arguments": {"table": "work_orders",
                                             "where": [{"column": "status", "op": "=", "value": "open"}]}},
            {"name": "select", "arguments": {"table": "technicians"}},
            *refs,
        ]
        task = (
            f"You help the maintenance desk of {building} ({n + 3} units). Today's {n} requests from the manager, "
            f"{manager}, are in /office/requests.txt, one per line, each about 'the open work order' of one unit. Apply each request "
            f"to table work_orders: 'assign ... to technician X' sets technician to X, 'mark ... done' sets status "
            f"to 'done', 'priority to high' sets priority to 'high'. A request can be applied only if its unit has "
            f"EXACTLY ONE order with status 'open' and, for an assignment, the technician is listed in table "
            f"technicians. Do not guess: leave every other request undone, and change nothing else in the tables "
            f"or files. Then call finish with the answer 'unresolved: ' followed by the ids of the requests you "
            f"could not apply, comma-separated in ascending order (for example 'unresolved: REQ-1, REQ-4')."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _answer(self):
        return "unresolved: " + ", ".join(self.unresolved)

    def _reported(self, action):
        parsed = parse_tool_calls(action if isinstance(action, str) else "", self.episode.schemas)
        if parsed["error"] is not None or parsed["final"] is None:
            return None
        return {f"REQ-{int(num)}" for num in UNRESOLVED_ID.findall(parsed["final"])}

    def step(self, action):
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if not terminated:
            return obs, reward, terminated, truncated, info
        reported = self._reported(action)
        answer_ok = reported is not None and reported == set(self.unresolved)
        if info.get("success") and not answer_ok:
            info["success"] = False
            reward = 0.0
            obs = (f"{obs}\nBut the finish answer does not list exactly the requests that could not be applied, "
                   f"so the task is not complete.")
        elif not info.get("success") and not answer_ok:
            obs = f"{obs}\nThe finish answer does not list exactly the requests that could not be applied either."
        info["answer_ok"] = answer_ok
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read the requests, then the open orders and the roster before "
                f"changing anything; update one order at a time by its id (never by unit, which can match several "
                f"rows). A request is unresolved when its unit has zero or two-plus open orders or its technician "
                f"is not on the roster; list those ids in the finish answer.")

    def reference_action(self):
        nxt = json.loads(self.episode.reference_action())
        if nxt["name"] == "finish":
            return json.dumps({"name": "finish", "arguments": {"answer": self._answer()}})
        return json.dumps(nxt, ensure_ascii=False)
