# expect: accepted
"""Ledger: top up a fleet fuel card by one vehicle's fuel spend in a month, and report its number of fill-ups."""

import json
import re

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.ledger import Ledger

ENV_SPEC = {
    "name": "FleetFuelCardTopUp",
    "domain": "tool_use",
    "description": "Read a fuel card's transaction history, add up one vehicle's fuel purchases in one month "
                   "(not car washes, tolls or other months), transfer that total from the fleet pool to the "
                   "card with a fixed memo, and submit the number of fill-ups through finish; scored by the "
                   "final ledger and the submitted count.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "records": {"min": 8, "max": 18, "default": 12,
                    "description": "card transactions in the history; from 10 non-fuel charges for the same "
                                   "vehicle, from 14 a refunded fill-up (a deposit) that reduces the total"},
    },
    "tools": ["list_accounts", "balance", "deposit", "withdraw", "transfer", "history", "finish"],
    "grounding": "Fleet management fuel cards: each vehicle's fill-ups are charged to a shared card that is "
                 "replenished monthly from the fleet budget by the vehicle's actual fuel spend.",
    "tags": ["ledger", "multi-turn", "state-equality", "finish-answer"],
    "max_obs_chars": 16000,
}

VEHICLES = ["VAN-1", "VAN-2", "VAN-3", "TRUCK-7", "TRUCK-9", "CAR-4", "CAR-5"]
MONTHS = ["2025-03", "2025-04", "2025-05"]
OTHER = ["car wash", "toll", "parking", "adblue"]


def _money(cents):
    return cents // 100 if cents % 100 == 0 else cents / 100


class FleetFuelCardTopUp:
    def __init__(self, records=12):
        self.records = records
        self.history = []
        self.accounts = {}
        self.expected = 0
        self.episode = None

    def reset(self, rng, options):
        count = self.records
        vehicles = rng.sample(VEHICLES, 3)
        target = vehicles[0]
        month = MONTHS[1]
        fills = rng.randint(2, 5)
        self.history = []
        total = 0
        n_fill = 0
        for i in range(count):
            if i < fills:
                vehicle, mon, kind = target, month, "fuel"
            elif count >= 10 and i < fills + 2:
                vehicle, mon, kind = target, month, rng.choice(OTHER)
            elif i < fills + 4:
                vehicle, mon, kind = target, rng.choice([MONTHS[0], MONTHS[2]]), "fuel"
            else:
                vehicle, mon, kind = rng.choice(vehicles), rng.choice(MONTHS), rng.choice(["fuel", "fuel"] + OTHER)
            day = rng.randint(1, 28)
            cents = rng.randint(3000, 12000) if kind == "fuel" else rng.randint(300, 2500)
            memo = f"{kind} {vehicle} {mon}-{day:02d}"
            if kind == "fuel":
                memo = memo + f" {rng.randint(200, 900) / 10:.1f} L"
            self.history.append({"account": "fuel_card", "kind": "withdrawal", "amount": _money(cents),
                                 "memo": memo, "_key": (mon, day, i)})
            if vehicle == target and mon == month and kind == "fuel":
                total += cents
                n_fill += 1
        if count >= 14:
            refund = rng.randint(500, 2000)
            self.history.append({"account": "fuel_card", "kind": "deposit", "amount": _money(refund),
                                 "memo": f"fuel refund {target} {month}-{rng.randint(1, 28):02d} overcharge",
                                 "_key": (month, 29, 999)})
            total -= refund
        self.history.sort(key=lambda r: r["_key"])
        self.history = [{k: v for k, v in r.items() if k != "_key"} for r in self.history]
        self.expected = n_fill
        self.accounts = {"fuel_card": rng.randint(50, 400), "fleet_pool": rng.randint(4000, 9000),
                         "maintenance": rng.randint(500, 3000)}
        memo = f"fuel top-up {target} {month}"
        reference = [
            {"name": "history", "arguments": {"account": "fuel_card", "limit": 200}},
            {"name": "transfer", "arguments": {"from_account": "fleet_pool", "to_account": "fuel_card",
                                               "amount": _money(total), "memo": memo}},
        ]
        task = (
            f"Monthly fuel reconciliation for {target}, month {month}. In the history of ledger account "
            f"'fuel_card', every charge's memo starts with its kind ('fuel', 'car wash', 'toll', ...), then the "
            f"vehicle and the date. Compute {target}'s net fuel spend in {month}: its fuel charges in that month "
            f"minus any fuel refund (a deposit) for it in that month. Transfer exactly that amount from "
            f"'fleet_pool' to 'fuel_card' with memo '{memo}'. Then call finish with answer = the number of "
            f"{target} fuel charges (fill-ups) in {month}, as a plain integer. Change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Ledger(accounts=dict(self.accounts), transactions=[dict(r) for r in self.history])

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
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", answer)]
        return len(numbers) == 1 and numbers[0] == self.expected

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
                obs = obs.replace("task complete.", "but the submitted fill-up count is missing or wrong.")
            elif not good:
                obs = obs + " The submitted fill-up count is missing or wrong as well."
        return obs, reward, terminated, truncated, info

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Filter the memos on all three fields (kind, vehicle, month) "
                f"before adding; sum in cents, and count only the charges, not the refund.")

    def reference_action(self):
        if self.episode.matched >= len(self.episode.reference):
            return json.dumps({"name": "finish", "arguments": {"answer": str(self.expected)}})
        return self.episode.reference_action()
