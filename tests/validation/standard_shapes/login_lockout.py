# shape: answer through finish plus state (lock accounts over a threshold, audit rows, the failure total as the one number of the answer)
"""Tables: lock accounts with too many failed logins on a day, log the action, and report a count via finish."""

import json
import re

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "LockBruteForcedAccounts",
    "domain": "tool_use",
    "description": "Query a login log, lock every active user with at least T failed logins on a given day, "
                   "record each lock in an audit table, and submit through finish the total number of failed "
                   "logins of the locked users that day; scored by the final tables and the submitted number.",
    "reward_range": [0.0, 1.0],
    "max_turns": 16,
    "players": 1,
    "difficulty": {
        "users": {"min": 4, "max": 12, "default": 6,
                  "description": "users in the log; from 6 a disabled user over the threshold (not locked), "
                                 "from 8 failures on the neighbouring day that must not count"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete", "finish"],
    "grounding": "Account-lockout policy against brute-force attacks (OWASP authentication guidance): lock an "
                 "account after a threshold of failed attempts within a window, and keep an audit trail.",
    "tags": ["sqlite", "multi-turn", "state-equality", "finish-answer"],
    "max_obs_chars": 16000,
}

NAMES = ["ada", "bo", "cyra", "dev", "eli", "fynn", "gia", "hugo", "ivo", "jun", "kai", "lena", "milo", "nia"]
DAYS = ["2025-02-10", "2025-02-11", "2025-02-12"]


class LockBruteForcedAccounts:
    def __init__(self, users=6):
        self.users = users
        self.user_rows = []
        self.login_rows = []
        self.expected = 0
        self.episode = None

    def reset(self, rng, options):
        count = self.users
        day = DAYS[1]
        other = rng.choice([DAYS[0], DAYS[2]])
        threshold = rng.randint(3, 6)
        names = rng.sample(NAMES, count)
        self.user_rows = []
        self.login_rows = []
        fails_on_day = {}
        n_over = rng.randint(1, max(1, count // 3))
        for i, name in enumerate(names):
            status = "active"
            if i < n_over:
                fails = threshold + rng.randint(0, 4)
            elif i == n_over:
                fails = threshold - 1
            else:
                fails = rng.randint(0, threshold - 1)
            if count >= 6 and i == count - 1:
                status = "disabled"
                fails = threshold + rng.randint(1, 3)
            self.user_rows.append({"username": name, "status": status})
            fails_on_day[name] = fails
            for _ in range(fails):
                self.login_rows.append({"username": name, "day": day, "ok": 0})
            for _ in range(rng.randint(1, 3)):
                self.login_rows.append({"username": name, "day": day, "ok": 1})
            if count >= 8 and i >= n_over and rng.random() < 0.6:
                for _ in range(threshold - fails + rng.randint(1, 2)):
                    self.login_rows.append({"username": name, "day": other, "ok": 0})
        rng.shuffle(self.login_rows)
        for k, row in enumerate(self.login_rows):
            row["id"] = k + 1
        rng.shuffle(self.user_rows)
        locked = sorted(r["username"] for r in self.user_rows
                        if r["status"] == "active" and fails_on_day[r["username"]] >= threshold)
        self.expected = sum(fails_on_day[u] for u in locked)
        reference = [
            {"name": "select", "arguments": {"table": "logins", "columns": ["username"], "where": [
                {"column": "day", "op": "=", "value": day}, {"column": "ok", "op": "=", "value": 0}]}},
            {"name": "select", "arguments": {"table": "users"}},
            {"name": "update", "arguments": {"table": "users", "values": {"status": "locked"},
                                             "where": [{"column": "username", "op": "in", "value": locked}]}},
            {"name": "insert", "arguments": {"table": "audit", "rows": [
                {"username": u, "action": "lock", "day": day} for u in locked]}},
        ]
        task = (
            f"Security review of {day}. Table 'logins' has one row per login attempt (ok = 1 success, 0 failure). "
            f"Lock every user whose status in table 'users' is 'active' and who had at least {threshold} failed "
            f"logins on {day} (other days do not count): set their status to 'locked' and insert one row per "
            f"locked user into table 'audit' with username, action 'lock' and day '{day}'. Leave every other "
            f"user as is. Then call finish with answer = the total number of failed logins on {day} of the users "
            f"you locked, as a plain integer."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase(tables={
            "users": {"columns": {"username": "TEXT", "status": "TEXT"}, "primary_key": "username",
                      "rows": [dict(r) for r in self.user_rows]},
            "logins": {"columns": {"id": "INTEGER", "username": "TEXT", "day": "TEXT", "ok": "INTEGER"},
                       "primary_key": "id", "rows": [dict(r) for r in self.login_rows]},
            "audit": {"columns": {"username": "TEXT", "action": "TEXT", "day": "TEXT"}, "rows": []},
        })

    def _answer_ok(self, answer):
        if answer is None:
            return False
        numbers = re.findall(r"-?\d+(?:\.\d+)?", answer.replace(",", ""))
        if len(numbers) != 1:
            return False
        value = float(numbers[0])
        return value == self.expected

    def _final_answer(self, action):
        if not isinstance(action, str):
            return None
        text = action.strip()
        calls = None
        try:
            data = json.loads(text)
            if not isinstance(data, (list, dict)):
                return text  # a bare number or string is a plain-text answer
            calls = data if isinstance(data, list) else [data]
        except json.JSONDecodeError:
            m = re.search(r"<tool_call>(.*?)(?:</tool_call>|$)", text, re.S) or re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
            if m is None:
                return text  # plain-text answer
            try:
                data = json.loads(m.group(1))
                calls = data if isinstance(data, list) else [data]
            except json.JSONDecodeError:
                return None
        if calls and isinstance(calls[-1], dict) and calls[-1].get("name") == "finish":
            args = calls[-1].get("arguments") or {}
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except json.JSONDecodeError:
                    return None
            answer = args.get("answer") if isinstance(args, dict) else None
            return answer if isinstance(answer, str) else (str(answer) if isinstance(answer, (int, float)) else None)
        return None

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset the environment to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "the episode is already over"})
        obs, reward, terminated, truncated, info = self.episode.step(action)
        if terminated:
            answer = self._final_answer(action)
            good = self._answer_ok(answer)
            info["answer_correct"] = good
            if info.get("success") and not good:
                info["success"] = False
                reward = 0.0
                obs = obs.replace("task complete.", "but the submitted count is missing or wrong.")
            elif not good:
                obs = obs + " The submitted count is missing or wrong as well."
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Count failures per user on the review day only, check each "
                f"user's current status before locking, and add up the failures of exactly the locked users.")

    def reference_action(self):
        if self.episode.matched >= len(self.episode.reference):
            return json.dumps({"name": "finish", "arguments": {"answer": str(self.expected)}})
        return self.episode.reference_action()
