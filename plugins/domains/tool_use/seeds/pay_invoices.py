"""Ledger + calculator: pay the unpaid invoices, topping up the operating account first if it is short."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calculator import Calculator
from spade_tools.ledger import Ledger
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "PayInvoices",
    "domain": "tool_use",
    "description": "Find which invoices are still unpaid from the account history, top up the operating "
                   "account by exactly the shortfall, then pay each invoice by transfer; scored by the final ledger.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "invoices": {"min": 2, "max": 9, "default": 4,
                     "description": "invoices on the list (more vendors, more already-paid ones to skip)"},
    },
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history", "calculate"],
    "grounding": "Accounts payable: never pay an invoice twice (check the payment history), fund the paying "
                 "account before the payment run, and reference the invoice number on every payment.",
    "tags": ["ledger", "calculator", "accounting", "multi-tool", "state-equality"],
    "max_obs_chars": 16000,
}

VENDORS = ["acme_supplies", "northwind_foods", "globex_it", "initech_print", "umbrella_clean", "stark_energy",
           "wayne_logistics"]
OTHER_SPENDING = ["payroll march", "office rent", "bank fees", "insurance premium"]


def money(cents):
    return f"{cents // 100}.{cents % 100:02d}"


class PayInvoices:
    def __init__(self, invoices=4):
        self.invoices = invoices
        self.accounts = {}
        self.history = []
        self.episode = None

    def reset(self, rng, options):
        count = self.invoices
        vendors = rng.sample(VENDORS, min(len(VENDORS), 2 + count // 2))
        number = rng.randint(1000, 8000)
        invoices = []
        for i in range(count):
            number = number + rng.randint(1, 90)
            invoices.append({"id": f"INV-{number}", "vendor": vendors[i % len(vendors)],
                             "cents": rng.randint(5000, 240000)})
        paid_count = rng.randint(1, max(1, count // 2))
        paid = sorted(rng.sample(range(count), paid_count))
        history = []
        for i in range(count):
            if i in paid or rng.random() < 0.3:
                memo = rng.choice(OTHER_SPENDING)
                history.append({"account": "operating", "kind": "withdrawal", "cents": rng.randint(10000, 90000),
                                "memo": memo})
            if i in paid:
                inv = invoices[i]
                history.append({"account": "operating", "kind": "transfer_out", "cents": inv["cents"],
                                "memo": inv["id"], "counterparty": inv["vendor"]})
                history.append({"account": inv["vendor"], "kind": "transfer_in", "cents": inv["cents"],
                                "memo": inv["id"], "counterparty": "operating"})
        unpaid = [inv for i, inv in enumerate(invoices) if i not in paid]
        due = sum(inv["cents"] for inv in unpaid)
        if rng.random() < 0.75:
            operating = rng.randint(max(100, due // 4), due - 100)
        else:
            operating = due + rng.randint(0, 50000)
        accounts = {"operating": operating, "savings": due + rng.randint(100000, 500000)}
        for vendor in vendors:
            accounts[vendor] = sum(inv["cents"] for i, inv in enumerate(invoices) if i in paid and inv["vendor"] == vendor)
        self.accounts = accounts
        self.history = history
        reference = [
            {"name": "history", "arguments": {"account": "operating"}},
            {"name": "balance", "arguments": {"account": "operating"}},
            {"name": "calculate", "arguments": {
                "expression": " + ".join(money(inv["cents"]) for inv in unpaid) + f" - {money(operating)}"}},
        ]
        if operating < due:
            reference.append({"name": "transfer", "arguments": {
                "from_account": "savings", "to_account": "operating", "amount": (due - operating) / 100,
                "memo": "top-up"}})
        for inv in unpaid:
            reference.append({"name": "transfer", "arguments": {
                "from_account": "operating", "to_account": inv["vendor"], "amount": inv["cents"] / 100,
                "memo": inv["id"]}})
        listing = "\n".join(f"  {inv['id']}  {inv['vendor']:<16} {money(inv['cents'])}" for inv in invoices)
        task = (
            f"Run the payment batch. Invoices on file:\n{listing}\n\n"
            f"Some of them were paid already: a payment is a transfer out of 'operating' whose memo is the invoice "
            f"id. Pay every invoice that is not paid yet with one transfer from 'operating' to the vendor's account "
            f"for its amount, memo = the invoice id. Before paying: if the balance of 'operating' is below the total "
            f"of the unpaid invoices, first make one transfer from 'savings' to 'operating' of exactly the "
            f"difference, memo 'top-up'; if it is enough, do not touch 'savings'. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        accounts = {name: cents / 100 for name, cents in self.accounts.items()}
        records = []
        for r in self.history:
            record = {"account": r["account"], "kind": r["kind"], "amount": r["cents"] / 100, "memo": r["memo"]}
            if "counterparty" in r:
                record["counterparty"] = r["counterparty"]
            records.append(record)
        return Toolbox(Ledger(accounts, records), Calculator())

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read the history for the invoice ids already paid, and let the "
                f"calculator add up what is still due and compare it with the balance before any payment.")

    def reference_action(self):
        return self.episode.reference_action()
