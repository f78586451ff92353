"""Trading with future annotations, dataclasses, typing, defaultdict, d[k] += 1, json and heapq."""

from __future__ import annotations

import heapq
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional

ENV_SPEC = {
    "name": "Inventory",
    "domain": "tool_use",
    "description": "Buy and sell items to reach a target inventory value.",
    "reward_range": [0, 1],
    "max_turns": 20,
}

PRICES: Dict[str, int] = {"apple": 3, "bread": 5, "cheese": 11}


@dataclass
class Ledger:
    cash: int = 30
    items: Dict[str, int] = field(default_factory=dict)
    log: List[str] = field(default_factory=list)

    def value(self) -> int:
        return self.cash + sum(PRICES[k] * v for k, v in self.items.items())


class Inventory:
    target: int = 0

    def __init__(self) -> None:
        self.ledger = Ledger()
        self.counts: Dict[str, int] = defaultdict(int)
        self.target = 40
        self._last: Optional[str] = None

    def _obs(self) -> str:
        return json.dumps({"cash": self.ledger.cash, "items": self.ledger.items, "target": self.target},
                          sort_keys=True)

    def reset(self, rng, options):
        self.ledger = Ledger(cash=rng.randint(20, 40))
        self.counts = defaultdict(int)
        self.target = self.ledger.cash + rng.randint(5, 15)
        return self._obs(), {"prices": dict(PRICES)}

    def step(self, action):
        verb, _, item = action.strip().partition(" ")
        if item not in PRICES or verb not in ("buy", "sell"):
            return self._obs(), 0, False, False, {"format_error": "use 'buy <item>' or 'sell <item>'"}
        self.counts[verb] += 1
        if verb == "buy" and self.ledger.cash >= PRICES[item]:
            self.ledger.cash -= PRICES[item]
            self.ledger.items[item] = self.ledger.items.get(item, 0) + 1
        elif verb == "sell" and self.ledger.items.get(item, 0) > 0:
            self.ledger.items[item] -= 1
            self.ledger.cash += PRICES[item] + 1
        self.ledger.log.append(action)
        self._last = action
        done = self.ledger.value() >= self.target
        return self._obs(), 1 if done else 0, done, False, {"success": done, "counts": dict(self.counts)}

    def privileged_hint(self):
        return "Selling earns one more than the price."

    def reference_action(self):
        owned = [(-PRICES[k], k) for k, v in self.ledger.items.items() if v > 0]
        heapq.heapify(owned)
        if owned:
            return "sell " + heapq.heappop(owned)[1]
        return "buy apple"
