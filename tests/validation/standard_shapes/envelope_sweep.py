# shape: file + ledger budgeting: read envelope caps from a file and the balances from the ledger, then sweep each envelope's excess over its cap to savings.
"""Budget envelopes: read the caps file and balances, then move every envelope's excess over its cap to savings."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calculator import Calculator
from spade_tools.filesystem import FileSystem
from spade_tools.ledger import Ledger
from spade_tools.toolbox import Toolbox

ENV_SPEC = {
    "name": "EnvelopeCapSweep",
    "domain": "tool_use",
    "description": "Envelope budgeting: caps per envelope are in /budget/caps.txt, balances in the ledger. For every "
                   "envelope above its cap, transfer exactly the excess to 'savings' with a fixed memo; envelopes at "
                   "or under the cap, or without a cap, stay untouched. Scored by the final ledger and files.",
    "reward_range": [0.0, 1.0],
    "max_turns": 22,
    "players": 1,
    "difficulty": {
        "envelopes": {"min": 2, "max": 8, "default": 4,
                      "description": "envelope accounts (more caps to compare; from 4 one envelope has no cap)"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep", "list_accounts",
              "balance", "deposit", "withdraw", "transfer", "history", "calculate"],
    "grounding": "Envelope budgeting: each spending category is capped; at month end any balance above the cap is "
                 "swept to savings, exactly the excess (balance minus cap) and nothing from envelopes under cap.",
    "tags": ["ledger", "filesystem", "calculator", "budgeting", "state-equality"],
    "max_obs_chars": 16000,
}

ENVELOPES = ["groceries", "transport", "dining", "clothing", "gifts", "utilities", "hobbies", "pets", "health",
             "travel"]


def money(cents):
    return f"{cents // 100}.{cents % 100:02d}"


class EnvelopeCapSweep:
    def __init__(self, envelopes=4):
        self.envelopes = envelopes
        self.balances = {}
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        names = rng.sample(ENVELOPES, self.envelopes)
        month = rng.choice(["January", "February", "March", "April", "May", "June", "July", "August", "September"])
        family = rng.choice(["Okafor", "Lindqvist", "Tanaka", "Moreau", "Silva", "Novak", "Haddad"])
        caps, balances = {}, {"savings": rng.randint(50000, 900000)}
        over = rng.sample(names, rng.randint(1, max(1, self.envelopes - 1)))
        uncapped = names[-1] if self.envelopes >= 4 and names[-1] not in over else None
        for name in names:
            cap = rng.randint(8, 60) * 1000 + rng.choice([0, 500])
            if name in over:
                balance = cap + rng.randint(1, 25000)
            else:
                balance = cap - rng.randint(0, 15000) if rng.random() < 0.8 else cap
            balances[f"env_{name}"] = max(0, balance)
            if name != uncapped:
                caps[name] = cap
        self.balances = balances
        lines = [f"{name}: {money(cap)}" for name, cap in caps.items()]
        rng.shuffle(lines)
        old = "\n".join(f"{name}: {money(rng.randint(5, 40) * 1000)}" for name in names)
        self.tree = {"budget": {"caps.txt": "# monthly caps in dollars\n" + "\n".join(lines) + "\n",
                                "archive": {"caps_2023.txt": f"# last year's caps (expired)\n{old}\n"}}}
        reference = [
            {"name": "cat", "arguments": {"file_name": "/budget/caps.txt"}},
            {"name": "list_accounts", "arguments": {}},
        ]
        for name in names:
            if name in caps and balances[f"env_{name}"] > caps[name]:
                excess = balances[f"env_{name}"] - caps[name]
                reference.append({"name": "calculate", "arguments": {
                    "expression": f"{money(balances[f'env_{name}'])} - {money(caps[name])}"}})
                reference.append({"name": "transfer", "arguments": {
                    "from_account": f"env_{name}", "to_account": "savings", "amount": excess / 100,
                    "memo": f"sweep {name}"}})
        task = (
            f"{month} month-end budget sweep for the {family} household over {self.envelopes} envelope accounts (named env_<category>). The current caps "
            f"are in /budget/caps.txt (anything under /budget/archive is expired). For every envelope whose balance "
            f"is ABOVE its cap, make one transfer of exactly (balance - cap) from that envelope to 'savings' with "
            f"memo 'sweep <category>' (e.g. 'sweep groceries'). Envelopes at or below their cap, and envelopes with "
            f"no cap listed, are left alone. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        accounts = {name: cents / 100 for name, cents in self.balances.items()}
        return Toolbox(FileSystem(self.tree, cwd="/budget"), Ledger(accounts), Calculator())

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Pair each cap line with the env_ account of the same category; "
                f"an envelope exactly at its cap is not above it, and a missing cap means no sweep.")

    def reference_action(self):
        return self.episode.reference_action()
