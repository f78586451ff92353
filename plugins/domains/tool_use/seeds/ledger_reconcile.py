"""Ledger: reconcile a checking account's ledger with the bank statement."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.ledger import Ledger

ENV_SPEC = {
    "name": "LedgerReconcile",
    "domain": "tool_use",
    "description": "Compare a bank statement with the ledger's history, post the missing lines and reverse "
                   "double postings so the ledger matches the statement; scored by the final ledger.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "missing": {"min": 1, "max": 6, "default": 2,
                    "description": "statement lines missing from the ledger; from 3 there is also a double "
                                   "posting to reverse, from 5 two"},
    },
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history"],
    "grounding": "Bank reconciliation in bookkeeping: match the statement line by line, record what the books "
                 "miss, and correct errors with reversing entries instead of deleting history.",
    "tags": ["ledger", "accounting", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

DEBITS = [
    "COFFEE CORNER", "CITY TRANSIT", "GREENLEAF GROCERS", "NORTHWIND UTILITIES", "PAPER & INK", "FASTFUEL",
    "CLOUDHOST", "BRIGHT PHARMACY", "METRO PARKING", "BOOKNOOK", "TELCO MOBILE", "HARBOR GYM",
]
CREDITS = ["ACME PAYROLL", "TAX REFUND", "CLIENT PAYMENT", "INTEREST", "EXPENSE REIMBURSEMENT"]


def money(cents):
    return f"{cents // 100}.{cents % 100:02d}"


class LedgerReconcile:
    def __init__(self, missing=2):
        self.missing = missing
        self.accounts = {}
        self.history = []
        self.episode = None

    def reset(self, rng, options):
        posted_count = rng.randint(4, 6)
        total = posted_count + self.missing
        debit_names = rng.sample(DEBITS, min(len(DEBITS), total))
        lines = []
        for i in range(total):
            credit = rng.random() < 0.25
            vendor = rng.choice(CREDITS) if credit else debit_names[i]
            description = f"{vendor} #{rng.randint(1000, 9999)}"
            cents = rng.randint(20000, 250000) if credit else rng.randint(350, 18000)
            lines.append({"day": 1 + i * 2 + rng.randint(0, 1), "description": description,
                          "cents": cents if credit else -cents})
        missing_idx = sorted(rng.sample(range(total), self.missing))
        doubles = []
        posted = [i for i in range(total) if i not in missing_idx]
        if self.missing >= 3:
            doubles = rng.sample(posted, 1 if self.missing < 5 else 2)
        opening = rng.randint(300000, 500000)
        history = []
        balance = opening
        for i in posted:
            history.append(self._record(lines[i]))
            balance = balance + lines[i]["cents"]
            if i in doubles:
                history.append(self._record(lines[i]))
                balance = balance + lines[i]["cents"]
        self.accounts = {"checking": balance}
        self.history = history
        closing = opening + sum(line["cents"] for line in lines)
        reference = [{"name": "history", "arguments": {"account": "checking"}}]
        for i in missing_idx:
            reference.append(self._posting(lines[i]["cents"], lines[i]["description"]))
        for i in doubles:
            reference.append(self._posting(-lines[i]["cents"], f"reversal: {lines[i]['description']}"))
        reference.append({"name": "balance", "arguments": {"account": "checking"}})
        statement = "\n".join(
            f"  2025-03-{line['day']:02d}  {line['description']:<32} {'+' if line['cents'] > 0 else '-'}"
            f"{money(abs(line['cents']))}"
            for line in lines
        )
        task = (
            f"Reconcile the ledger account 'checking' with this bank statement for March 2025 "
            f"(opening balance {money(opening)}, closing balance {money(closing)}):\n{statement}\n\n"
            f"Rules: every statement line must appear in the ledger exactly once. Post each missing line as a "
            f"deposit (for +) or a withdrawal (for -) of its amount, with the statement description as the memo, "
            f"character for character. If the ledger holds an entry twice, keep the history and cancel the extra "
            f"copy with the opposite transaction whose memo is 'reversal: ' followed by the original memo. "
            f"Change nothing else; at the end the balance must equal the closing balance."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _record(self, line):
        kind = "deposit" if line["cents"] > 0 else "withdrawal"
        return {"account": "checking", "kind": kind, "cents": abs(line["cents"]), "memo": line["description"]}

    def _posting(self, cents, memo):
        name = "deposit" if cents > 0 else "withdraw"
        amount = abs(cents) / 100
        return {"name": name, "arguments": {"account": "checking", "amount": amount, "memo": memo}}

    def _toolbox(self):
        accounts = {name: cents / 100 for name, cents in self.accounts.items()}
        records = [
            {"account": r["account"], "kind": r["kind"], "amount": r["cents"] / 100, "memo": r["memo"]}
            for r in self.history
        ]
        return Ledger(accounts, records)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Compare the statement with the ledger history line by line; "
                f"a double posting shows up as the same memo twice.")

    def reference_action(self):
        return self.episode.reference_action()
