# shape: bank/wallet bill-pay: payee account lookup, transfer in due order, confirmation row with post-transfer ...
"""Ledger + tables: pay queued bills from a wallet after looking up each payee's account, confirm each payment with the
balance it left, and hold the ones that would break the wallet's floor."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.ledger import Ledger
from spade_tools.sqltable import SqlDatabase
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "WalletPayeeConfirmations",
    "domain": "tool_use",
    "description": "Pay queued bills from a wallet account: look up each payee's ledger account in a payee "
                   "directory, transfer in due-date order, write a confirmation row with the wallet balance left "
                   "after each transfer, and mark as held any bill that would take the wallet below its floor.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "bills": {"min": 2, "max": 7, "default": 4,
                  "description": "queued bills; from 3 one bill breaks the floor and must be held (later, smaller "
                                 "bills are still paid), from 5 a payee has an old closed account listed too"},
    },
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history", "list_tables",
              "create_table", "insert", "select", "update", "delete"],
    "grounding": "Bill-pay in consumer banking: payee lookup, a minimum-balance floor, confirmation numbers that "
                 "record the post-payment balance, and holds on payments that would overdraw.",
    "tags": ["ledger", "sql", "multi-turn", "state-equality", "confirmation"],
    "max_obs_chars": 16000,
}

PAYEES = ["City Water", "Northgrid Power", "Fibrelink", "Oak Street Rent", "Civic Gym", "Metro Transit",
          "Harbor Insurance", "Pine Dental"]


class WalletPayeeConfirmations:
    def __init__(self, bills=4):
        self.bills = bills
        self.accounts = {}
        self.tables = {}
        self.episode = None

    def reset(self, rng, options):
        n = self.bills
        payees = rng.sample(PAYEES, n)
        floor = rng.choice([50, 100, 150])
        amounts = [round(rng.randint(2000, 16000) / 100, 2) for _ in range(n)]
        days = sorted(rng.sample(range(1, 28), n))
        order = list(range(n))
        rng.shuffle(order)
        bills = []
        for k, i in enumerate(order):
            bills.append({"bill_id": f"B{rng.randint(100, 999)}{k}", "payee": payees[i],
                          "due": f"2025-05-{days[i]:02d}", "amount": amounts[i], "status": "queued"})
        by_due = sorted(bills, key=lambda b: b["due"])
        hold_index = None
        if n >= 3:
            hold_index = rng.randint(1, n - 2)
            pre = sum(b["amount"] for b in by_due[:hold_index])
            rest = [b["amount"] for j, b in enumerate(by_due) if j > hold_index]
            # room after earlier bills: enough for every later bill, not for the held one
            need_later = sum(rest)
            big = by_due[hold_index]
            big["amount"] = round(max(big["amount"], need_later + 40.0) + rng.randint(0, 3000) / 100, 2)
            slack = round(need_later + rng.randint(500, 3000) / 100, 2)
            start = round(floor + pre + slack, 2)
        else:
            start = round(floor + sum(b["amount"] for b in bills) + rng.randint(500, 5000) / 100, 2)
        directory = []
        self.accounts = {"wallet": start}
        for j, p in enumerate(payees):
            acct = f"acct_{rng.randint(1000, 9999)}{j}"
            self.accounts[acct] = round(rng.randint(0, 50000) / 100, 2)
            directory.append({"payee": p, "account": acct, "active": 1})
            if n >= 5 and j == 0:
                old = f"acct_{rng.randint(1000, 9999)}x"
                self.accounts[old] = 0.0
                directory.append({"payee": p, "account": old, "active": 0})
        self.tables = {
            "bills": {"columns": {"bill_id": "TEXT", "payee": "TEXT", "due": "TEXT", "amount": "REAL",
                                  "status": "TEXT"}, "primary_key": "bill_id", "rows": bills},
            "payees": {"columns": {"payee": "TEXT", "account": "TEXT", "active": "INTEGER"}, "rows": directory},
            "confirmations": {"columns": {"bill_id": "TEXT", "account": "TEXT", "wallet_after": "REAL"},
                              "primary_key": "bill_id", "rows": []},
        }
        active = {d["payee"]: d["account"] for d in directory if d["active"] == 1}
        ref = [{"name": "balance", "arguments": {"account": "wallet"}},
               {"name": "select", "arguments": {"table": "bills", "order_by": "due"}},
               {"name": "select", "arguments": {"table": "payees", "where": [{"column": "active", "op": "=",
                                                                               "value": 1}]}}]
        wallet = start
        for b in by_due:
            if round(wallet - b["amount"], 2) < floor:
                ref.append({"name": "update", "arguments": {"table": "bills", "values": {"status": "held"},
                                                            "where": [{"column": "bill_id", "op": "=",
                                                                       "value": b["bill_id"]}]}})
                continue
            wallet = round(wallet - b["amount"], 2)
            acct = active[b["payee"]]
            ref.append({"name": "transfer", "arguments": {"from_account": "wallet", "to_account": acct,
                                                          "amount": b["amount"], "memo": b["bill_id"]}})
            ref.append({"name": "insert", "arguments": {"table": "confirmations", "rows": [
                {"bill_id": b["bill_id"], "account": acct, "wallet_after": wallet}]}})
            ref.append({"name": "update", "arguments": {"table": "bills", "values": {"status": "paid"},
                                                        "where": [{"column": "bill_id", "op": "=",
                                                                   "value": b["bill_id"]}]}})
        task = (f"Pay the queued bills in the 'bills' table from the ledger account 'wallet', in order of due date "
                f"(earliest first). The wallet must never drop below {floor} after a payment: a bill that would "
                f"take it below {floor} is not paid; set its status to 'held' and go on with the next bill. For "
                f"every bill you pay: transfer exactly its amount from 'wallet' to the payee's ACTIVE ledger account "
                f"(see the 'payees' table, active = 1) with the bill_id as memo, insert one row into 'confirmations' "
                f"(bill_id, account paid, wallet_after = the wallet balance right after that transfer), and set the "
                f"bill's status to 'paid'. Change nothing else.")
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
        return (f"{self.episode.milestone_hint()} Keep a running wallet balance and compare it with the floor "
                f"before each transfer; a held bill does not stop the later, smaller ones.")

    def reference_action(self):
        return self.episode.reference_action()
