# shape: ledger transfers after a lookup: hours summed over shift rows (filter week and role), shares truncated ...
"""Ledger + tables: share out a restaurant's tip pool in proportion to hours worked (summed over shift rows), paying
each server by transfer, rounding every share down to the cent and leaving the remainder in the pool."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.ledger import Ledger
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "TipPoolPayout",
    "domain": "tool_use",
    "description": "Distribute a week's tip pool: sum each eligible worker's hours over the shift table, pay "
                   "each one pool * hours / total hours rounded DOWN to the cent by ledger transfer with a fixed "
                   "memo, and leave the leftover cents in the pool. Scored by balances and ledger history.",
    "reward_range": [0.0, 1.0],
    "max_turns": 36,
    "players": 1,
    "difficulty": {
        "staff": {"min": 2, "max": 7, "default": 4,
                  "description": "eligible workers; from 3 a manager's shifts are in the table but managers are "
                                 "excluded, from 5 a shift of another week is in the table too"},
    },
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history", "list_tables",
              "create_table", "insert", "select", "update", "delete"],
    "grounding": "Tip pooling (e.g. US FLSA rules that exclude managers from the pool), shares proportional to "
                 "hours worked, cents rounded down so the pool is never overdrawn.",
    "tags": ["ledger", "sql", "multi-turn", "state-equality", "rounding"],
    "max_obs_chars": 16000,
}

STAFF = ["amara", "bruno", "chloe", "diego", "elif", "farah", "goran", "hugo", "ines", "jonas"]


class TipPoolPayout:
    def __init__(self, staff=4):
        self.staff = staff
        self.accounts = {}
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        n = self.staff
        people = rng.sample(STAFF, n + 1)
        workers, manager = people[:n], people[n]
        week = f"2025-W{rng.randint(10, 40)}"
        other_week = f"2025-W{rng.randint(41, 50)}"
        shifts = []
        sid = 1
        hours = {}
        for w in workers:
            for _ in range(rng.randint(1, 3)):
                h = rng.choice([3.5, 4, 4.5, 5, 6, 6.5, 7, 8])
                shifts.append({"shift_id": sid, "worker": w, "role": "server", "week": week, "hours": h})
                hours[w] = hours.get(w, 0) + h
                sid = sid + 1
        if n >= 3:
            shifts.append({"shift_id": sid, "worker": manager, "role": "manager", "week": week,
                           "hours": rng.choice([8, 9, 10])})
            sid = sid + 1
        if n >= 5:
            shifts.append({"shift_id": sid, "worker": rng.choice(workers), "role": "server", "week": other_week,
                           "hours": rng.choice([4, 5, 6])})
        rng.shuffle(shifts)
        pool_cents = rng.randint(30000, 250000)
        pool = pool_cents / 100
        total = sum(hours.values())
        self.accounts = {"tip_pool": pool}
        for p in people:
            self.accounts[p] = round(rng.randint(0, 40000) / 100, 2)
        self.tables = {"shifts": {"columns": {"shift_id": "INTEGER", "worker": "TEXT", "role": "TEXT",
                                              "week": "TEXT", "hours": "REAL"}, "primary_key": "shift_id",
                                  "rows": shifts}}
        ref = [{"name": "balance", "arguments": {"account": "tip_pool"}},
               {"name": "select", "arguments": {"table": "shifts", "where": [
                   {"column": "week", "op": "=", "value": week}, {"column": "role", "op": "=", "value": "server"}]}}]
        memo = f"tips {week}"
        for w in sorted(workers):
            share = (pool_cents * hours[w] * 2) // int(total * 2) / 100  # hours are multiples of 0.5
            ref.append({"name": "transfer", "arguments": {"from_account": "tip_pool", "to_account": w,
                                                          "amount": share, "memo": memo}})
        task = (f"Pay out the whole tip pool (ledger account 'tip_pool') for week {week}. Only servers share; "
                f"managers are excluded. Each server's share is pool * (their server hours in {week}, summed over "
                f"the 'shifts' table) / (all servers' hours in {week}), rounded DOWN to the cent. Transfer each "
                f"share from 'tip_pool' to the worker's ledger account (same name as in the table) with memo "
                f"'{memo}', one transfer per worker; leftover cents stay in the pool. Change nothing else.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Toolbox(Ledger(accounts=self.accounts), SqlDatabase(tables=self.tables))

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Sum hours per worker over all their matching rows before dividing, "
                f"filter on both week and role, and truncate (not round) each share to whole cents.")

    def reference_action(self):
        return self.episode.reference_action()
