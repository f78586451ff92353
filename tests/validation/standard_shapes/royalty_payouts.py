# shape: missing information to report (an approved artist without an account: not paid, put on hold, named through finish)
"""Table + ledger: pay approved royalty statements; an artist without a ledger account is held and reported."""

import json
import re

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.ledger import Ledger
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "PayRoyaltyStatements",
    "domain": "tool_use",
    "description": "Pay every approved royalty statement from the label's operating account to the artist's "
                   "ledger account and mark it paid; a statement whose artist has no ledger account cannot be "
                   "paid, so it is put on hold and the artist is reported in the finish answer. Scored by the "
                   "final ledger and table plus the reported names.",
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "statements": {"min": 3, "max": 10, "default": 5,
                       "description": "royalty statements; more payments; from 5 pending statements to skip, "
                                      "from 7 a second artist without an account"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete",
              "list_accounts", "balance", "deposit", "withdraw", "transfer", "history", "finish"],
    "grounding": "Music-label royalty accounting: quarterly statements per artist are approved, then paid out "
                 "to the artist's payee account; missing payee details put a statement on hold.",
    "tags": ["ledger", "sqlite", "missing-information", "finish-answer", "state-equality"],
    "max_obs_chars": 16000,
}

ARTISTS = ["ayla_moon", "brass_foxes", "cielo", "dune_static", "echo_park", "fern_lowe", "glass_harbor",
           "hollow_pines", "iris_vale", "juno_reyes", "kite_theory", "lumen_drift"]
QUARTERS = ["Q1", "Q2", "Q3", "Q4"]


class PayRoyaltyStatements:
    def __init__(self, statements=5):
        self.statements = statements
        self.rows = []
        self.accounts = {}
        self.missing = []
        self.episode = None

    def reset(self, rng, options):
        count = self.statements
        quarter = rng.choice(QUARTERS)
        artists = rng.sample(ARTISTS, count)
        n_missing = 2 if count >= 7 else 1
        pending = set(rng.sample(range(n_missing, count), 1 if count >= 5 else 0))
        self.rows = []
        self.accounts = {"label_ops": rng.randint(40000, 90000)}
        self.missing = []
        pays = []
        numbers = rng.sample(range(1000, 9999), count)
        for i, artist in enumerate(artists):
            cents = rng.randint(5000, 400000)
            amount = cents // 100 if cents % 100 == 0 else cents / 100
            status = "pending" if i in pending else "approved"
            self.rows.append({"statement": f"RS-{quarter}-{numbers[i]}", "artist": artist,
                              "amount": amount, "status": status})
            if i < n_missing:
                if status == "approved":
                    self.missing.append(artist)
                continue
            self.accounts[f"artist_{artist}"] = rng.randint(0, 3000)
            if status == "approved":
                pays.append(self.rows[-1])
        rng.shuffle(self.rows)
        self.missing.sort()
        memo_of = {}
        reference = [{"name": "select", "arguments": {"table": "statements", "where": [
                         {"column": "status", "op": "=", "value": "approved"}]}},
                     {"name": "list_accounts", "arguments": {}}]
        for row in sorted(pays, key=lambda r: r["statement"]):
            memo_of[row["statement"]] = f"royalties {row['statement']}"
            reference.append({"name": "transfer", "arguments": {
                "from_account": "label_ops", "to_account": f"artist_{row['artist']}", "amount": row["amount"],
                "memo": f"royalties {row['statement']}"}})
        reference.append({"name": "update", "arguments": {"table": "statements", "values": {"status": "paid"},
                                                          "where": [{"column": "statement", "op": "in",
                                                                     "value": sorted(memo_of)}]}})
        held = sorted(r["statement"] for r in self.rows if r["artist"] in self.missing)
        reference.append({"name": "update", "arguments": {"table": "statements", "values": {"status": "on_hold"},
                                                          "where": [{"column": "statement", "op": "in",
                                                                     "value": held}]}})
        task = (
            f"Pay the {quarter} royalties. For every statement in table 'statements' with status 'approved', "
            f"transfer its amount from ledger account 'label_ops' to the artist's account 'artist_<artist>' with "
            f"memo 'royalties <statement>' (e.g. 'royalties RS-Q1-1234'), then set its status to 'paid'. If the "
            f"artist of an approved statement has no ledger account, do not pay it and do not create accounts: "
            f"set that statement's status to 'on_hold' instead. Leave pending statements alone. Finally call "
            f"finish with answer = the artist names (as written in the table) of the statements put on hold, "
            f"comma-separated."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        db = SqlDatabase(tables={"statements": {
            "columns": {"statement": "TEXT", "artist": "TEXT", "amount": "REAL", "status": "TEXT"},
            "primary_key": "statement", "rows": [dict(r) for r in self.rows]}})
        return Toolbox(db, Ledger(accounts=dict(self.accounts)))

    def _final_answer(self, action):
        text = action.strip() if isinstance(action, str) else ""
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            m = re.search(r"<tool_call>(.*?)(?:</tool_call>|$)", text, re.S) or re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
            if m is None:
                return text
            try:
                data = json.loads(m.group(1))
            except json.JSONDecodeError:
                return None
        if not isinstance(data, (list, dict)):
            return text
        calls = data if isinstance(data, list) else [data]
        if calls and isinstance(calls[-1], dict) and calls[-1].get("name") == "finish":
            args = calls[-1].get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except json.JSONDecodeError:
                    return None
            answer = args.get("answer") if isinstance(args, dict) else None
            return answer if isinstance(answer, str) else None
        return None

    def _answer_ok(self, answer):
        if not answer:
            return False
        names = [n.strip().strip(".'\"").lower() for n in re.split(r",|\band\b|\n|;", answer)]
        names = [n for n in names if n]
        return sorted(names) == self.missing

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if terminated:
            good = self._answer_ok(self._final_answer(action))
            info["answer_correct"] = good
            if info.get("success") and not good:
                info["success"] = False
                reward = 0.0
                obs = obs.replace("task complete.", "but the reported names are missing or wrong.")
            elif not good:
                obs = obs + " The reported names are missing or wrong as well."
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Compare the approved artists with the accounts that exist "
                f"before paying anything; a refused transfer means the payee is missing, not that you should "
                f"create one.")

    def reference_action(self):
        if self.episode.matched >= len(self.episode.reference):
            return json.dumps({"name": "finish", "arguments": {"answer": ", ".join(self.missing)}})
        return self.episode.reference_action()
