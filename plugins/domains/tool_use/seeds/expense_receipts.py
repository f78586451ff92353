"""File system + ledger: read receipts, book the company-card ones and file them away."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem
from spade_tools.ledger import Ledger
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "ExpenseReceipts",
    "domain": "tool_use",
    "description": "Read scanned receipts (text files), record each company-card purchase as a withdrawal in "
                   "the ledger and move its receipt into a 'filed' folder; scored by the final files and ledger.",
    "reward_range": [0.0, 1.0],
    "max_turns": 45,
    "players": 1,
    "difficulty": {
        "receipts": {"min": 2, "max": 10, "default": 4,
                     "description": "receipts to process; from 5 some were already booked and must be skipped"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep",
              "list_accounts", "balance", "deposit", "withdraw", "transfer", "history"],
    "grounding": "Expense reporting: only company-card purchases are booked to the company account, each "
                 "exactly once, and processed receipts are filed so they are not booked twice.",
    "tags": ["filesystem", "ledger", "multi-tool", "state-equality"],
    "max_obs_chars": 16000,
}

MERCHANTS = ["Blue Bottle Coffee", "Metro Taxi", "Hotel Aurora", "Office Depot", "Rail Europe", "Pizzeria Roma",
             "Copy Center", "Airport Parking", "Tech Store", "Book Corner", "Sushi Ya", "Print Hub"]
USERS = ["sam", "lena", "omar", "yuki", "carla", "dmitri", "ade", "freya"]


def money(cents):
    return f"{cents // 100}.{cents % 100:02d}"


class ExpenseReceipts:
    def __init__(self, receipts=4):
        self.receipts = receipts
        self.tree = {}
        self.history = []
        self.balance = 0
        self.home = "/home/sam"
        self.episode = None

    def reset(self, rng, options):
        count = self.receipts
        user = rng.choice(USERS)
        self.home = f"/home/{user}"
        receipts = f"{self.home}/receipts"
        merchants = rng.sample(MERCHANTS, count)
        company = [rng.random() < 0.65 for _ in range(count)]
        if not any(company):
            company[0] = True
        files = {}
        items = []
        for i, merchant in enumerate(merchants):
            cents = rng.randint(450, 38000)
            card = "company card" if company[i] else "personal card"
            name = f"scan_{rng.randint(100, 999)}{i}.txt"
            files[name] = (f"Merchant: {merchant}\nDate: 2025-05-{rng.randint(1, 28):02d}\n"
                           f"Total: {money(cents)}\nPaid with: {card}\n")
            items.append({"file": name, "merchant": merchant, "cents": cents, "company": company[i]})
        booked = []
        if count >= 5:
            candidates = [item for item in items if item["company"]]
            if len(candidates) > 1:
                booked = [candidates[-1]["file"]]
        self.history = [{"account": "company_card", "kind": "withdrawal", "cents": item["cents"],
                         "memo": item["merchant"]} for item in items if item["file"] in booked]
        self.balance = rng.randint(300000, 600000)
        self.tree = {"home": {user: {"receipts": files, "notes.txt": "expenses due Friday"}}}
        reference = [{"name": "ls", "arguments": {"path": receipts}}]
        for name in sorted(files):
            reference.append({"name": "cat", "arguments": {"file_name": f"{receipts}/{name}"}})
        if booked:
            reference.append({"name": "history", "arguments": {"account": "company_card"}})
        reference.append({"name": "mkdir", "arguments": {"dir_name": f"{receipts}/filed"}})
        for item in items:
            if not item["company"]:
                continue
            if item["file"] not in booked:
                reference.append({"name": "withdraw", "arguments": {
                    "account": "company_card", "amount": item["cents"] / 100, "memo": item["merchant"]}})
            reference.append({"name": "mv", "arguments": {
                "source": f"{receipts}/{item['file']}", "destination": f"{receipts}/filed"}})
        task = (
            f"Process the receipts in {receipts}. For every receipt paid with the company card, record a "
            f"withdrawal from the ledger account 'company_card' of the receipt's total, with the merchant name "
            f"(exactly as on the receipt) as the memo, and move the receipt into {receipts}/filed (create that "
            f"folder). A company-card receipt that is already in the history of 'company_card' (same merchant and "
            f"amount) must not be booked again, but is still filed. Leave personal-card receipts where they are. "
            f"Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        records = [{"account": r["account"], "kind": r["kind"], "amount": r["cents"] / 100, "memo": r["memo"]}
                   for r in self.history]
        ledger = Ledger({"company_card": self.balance / 100}, records)
        return Toolbox(FileSystem(self.tree, cwd=self.home), ledger)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Read every receipt before booking anything, and check the "
                f"account history for purchases that were booked before.")

    def reference_action(self):
        return self.episode.reference_action()
