"""A bank-account ledger tool: balances, deposits, withdrawals, transfers and transaction history.

Amounts are JSON numbers with at most two decimals, kept internally as integer cents (no float drift). The
ledger is append-only: a mistake is corrected with a compensating transaction, as in real bookkeeping.
Accounts never go negative; a withdrawal or transfer that would overdraw is refused and changes nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from spade_core import linear_re
from spade_tools.base import ToolDef, ToolError, ToolSet, unknown_name_message
from spade_tools.schema import obj

MAX_AMOUNT_CENTS = 100_000_000_000
MAX_TRANSACTIONS = 10_000
MAX_ACCOUNTS = 200
MAX_MEMO_CHARS = 200
KINDS = ("deposit", "withdrawal", "transfer_in", "transfer_out")
ACCOUNT_PATTERN = linear_re.compile(r"^[a-z][a-z0-9_]{0,39}$")

_ACCOUNT = {"type": "string", "minLength": 1, "maxLength": 40, "description": "account name, e.g. 'checking'"}
_AMOUNT = {"type": "number", "description": "positive amount with at most two decimals"}
_MEMO = {"type": "string", "maxLength": MAX_MEMO_CHARS, "description": "free-text description of the transaction"}


def to_cents(amount: Any) -> int:
    """Convert a positive amount with at most two decimals to integer cents, or raise ToolError."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise ToolError(f"amount must be a number, got {amount!r}")
    if not math.isfinite(amount) or abs(amount) > MAX_AMOUNT_CENTS / 100:
        raise ToolError(f"amount {amount!r} is too large (at most {from_cents(MAX_AMOUNT_CENTS)})")
    cents = round(amount * 100)
    if abs(amount * 100 - cents) > 1e-6:
        raise ToolError(f"amount must have at most two decimals, got {amount!r}")
    if cents <= 0:
        raise ToolError(f"amount must be positive, got {amount!r}")
    if cents > MAX_AMOUNT_CENTS:
        raise ToolError(f"amount {amount!r} is too large")
    return cents


def from_cents(cents: int) -> int | float:
    """Integer cents as a JSON number (whole amounts stay integers: 1250 -> 12.5, 1200 -> 12)."""
    return cents // 100 if cents % 100 == 0 else cents / 100


def _memo(memo: Any) -> str:
    if not isinstance(memo, str):
        raise ToolError("memo must be a string")
    memo = memo.strip()
    if len(memo) > MAX_MEMO_CHARS:
        raise ToolError(f"memo has at most {MAX_MEMO_CHARS} characters")
    return memo


class Ledger(ToolSet):
    """Accounts with balances and an append-only history.

    ``Ledger(accounts={"checking": 120.5}, transactions=[{"account": "checking", "kind": "deposit",
    "amount": 20, "memo": "refund"}])``: ``accounts`` are the *current* balances; ``transactions`` are past
    history records (shown by ``history``; they do not change the balances).
    ``snapshot()`` holds the balances and the history as a sorted multiset, so two runs that post the same
    transactions in a different order compare equal.
    """

    KIND = "ledger"
    TOOL_DEFS = (
        ToolDef("list_accounts", "List every account with its balance.", obj({})),
        ToolDef("balance", "Show the balance of one account.", obj({"account": _ACCOUNT}, ["account"])),
        ToolDef("deposit", "Add money to an account.", obj(
            {"account": _ACCOUNT, "amount": _AMOUNT, "memo": _MEMO}, ["account", "amount"])),
        ToolDef("withdraw", "Take money out of an account (refused if the balance is too low).", obj(
            {"account": _ACCOUNT, "amount": _AMOUNT, "memo": _MEMO}, ["account", "amount"])),
        ToolDef("transfer", "Move money between two accounts (refused if the source balance is too low).", obj({
            "from_account": _ACCOUNT, "to_account": _ACCOUNT, "amount": _AMOUNT, "memo": _MEMO,
        }, ["from_account", "to_account", "amount"])),
        ToolDef("history", "Show the transactions of an account, oldest first (the most recent 'limit').", obj({
            "account": _ACCOUNT,
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "how many; default 50"},
        }, ["account"])),
    )

    def __init__(self, accounts: Mapping[str, Any] | None = None,
                 transactions: Sequence[Mapping[str, Any]] = ()) -> None:
        self._balances: dict[str, int] = {}
        for name, balance in (accounts or {}).items():
            if not isinstance(name, str) or not ACCOUNT_PATTERN.match(name):
                raise ValueError(f"account name {name!r} must be lowercase letters, digits or '_' (max 40)")
            cents = round(balance * 100) if isinstance(balance, (int, float)) and not isinstance(balance, bool) else -1
            if cents < 0 or abs(balance * 100 - cents) > 1e-6:
                raise ValueError(f"balance of {name!r} must be a non-negative amount with two decimals")
            self._balances[name] = cents
        if len(self._balances) > MAX_ACCOUNTS:
            raise ValueError(f"at most {MAX_ACCOUNTS} accounts")
        self._log: list[dict[str, Any]] = []
        for record in transactions:
            account, kind = record.get("account"), record.get("kind")
            if account not in self._balances:
                raise ValueError(f"history record for unknown account {account!r}")
            if kind not in KINDS:
                raise ValueError(f"history record kind must be one of {KINDS}, got {kind!r}")
            try:
                cents = to_cents(record.get("amount"))
                memo = _memo(record.get("memo", ""))
            except ToolError as err:
                raise ValueError(f"history record: {err}") from None
            self._append(account, kind, cents, memo, record.get("counterparty"))

    # -- state ----------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        records = [{k: v for k, v in r.items() if k != "id"} for r in self._log]
        records.sort(key=lambda r: json.dumps(r, sort_keys=True))
        return {"accounts": {n: from_cents(c) for n, c in sorted(self._balances.items())}, "transactions": records}

    # -- helpers --------------------------------------------------------------------------------------------
    def _account(self, name: str) -> str:
        if name not in self._balances:
            raise ToolError(unknown_name_message("account", name, sorted(self._balances)))
        return name

    def _append(self, account: str, kind: str, cents: int, memo: str, counterparty: Any = None) -> dict[str, Any]:
        if len(self._log) >= MAX_TRANSACTIONS:
            raise ToolError(f"the ledger is full ({MAX_TRANSACTIONS} transactions)")
        record = {"id": len(self._log) + 1, "account": account, "kind": kind, "amount": from_cents(cents), "memo": memo}
        if counterparty is not None:
            record["counterparty"] = counterparty
        self._log.append(record)
        return dict(record)

    def _need(self, account: str, cents: int) -> None:
        if self._balances[account] < cents:
            raise ToolError(
                f"insufficient funds: {account} has {from_cents(self._balances[account])}, needs {from_cents(cents)}"
            )

    # -- tools ----------------------------------------------------------------------------------------------
    def list_accounts(self) -> dict[str, Any]:
        return {"accounts": {n: from_cents(c) for n, c in sorted(self._balances.items())}}

    def balance(self, account: str) -> dict[str, Any]:
        account = self._account(account)
        return {"account": account, "balance": from_cents(self._balances[account])}

    def deposit(self, account: str, amount: float, memo: str = "") -> dict[str, Any]:
        account, cents, memo = self._account(account), to_cents(amount), _memo(memo)
        if self._balances[account] + cents > MAX_AMOUNT_CENTS:
            raise ToolError("the balance would exceed the ledger's limit")
        record = self._append(account, "deposit", cents, memo)
        self._balances[account] += cents
        return {"transaction": record, "balance": from_cents(self._balances[account])}

    def withdraw(self, account: str, amount: float, memo: str = "") -> dict[str, Any]:
        account, cents, memo = self._account(account), to_cents(amount), _memo(memo)
        self._need(account, cents)
        record = self._append(account, "withdrawal", cents, memo)
        self._balances[account] -= cents
        return {"transaction": record, "balance": from_cents(self._balances[account])}

    def transfer(self, from_account: str, to_account: str, amount: float, memo: str = "") -> dict[str, Any]:
        source, target = self._account(from_account), self._account(to_account)
        if source == target:
            raise ToolError("from_account and to_account must differ")
        cents, memo = to_cents(amount), _memo(memo)
        self._need(source, cents)
        if self._balances[target] + cents > MAX_AMOUNT_CENTS:
            raise ToolError("the balance would exceed the ledger's limit")
        if len(self._log) + 2 > MAX_TRANSACTIONS:
            raise ToolError(f"the ledger is full ({MAX_TRANSACTIONS} transactions)")
        out = self._append(source, "transfer_out", cents, memo, target)
        into = self._append(target, "transfer_in", cents, memo, source)
        self._balances[source] -= cents
        self._balances[target] += cents
        return {
            "transactions": [out, into],
            "balances": {source: from_cents(self._balances[source]), target: from_cents(self._balances[target])},
        }

    def history(self, account: str, limit: int = 50) -> dict[str, Any]:
        account = self._account(account)
        records = [dict(r) for r in self._log if r["account"] == account]
        return {"account": account, "transactions": records[-limit:], "total": len(records)}
