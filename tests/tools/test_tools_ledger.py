"""The ledger tool: exact money, refused overdrafts, order-free snapshots."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.ledger import Ledger


def fresh() -> Ledger:
    return Ledger({"checking": 100, "savings": 20.5},
                  [{"account": "checking", "kind": "deposit", "amount": 100, "memo": "opening"}])


def test_deposit_withdraw_transfer_and_history() -> None:
    ledger = fresh()
    assert ledger.call("deposit", {"account": "checking", "amount": 0.1, "memo": " coffee refund "})["balance"] == 100.1
    assert ledger.call("withdraw", {"account": "checking", "amount": 0.2})["balance"] == 99.9
    result = ledger.call("transfer", {"from_account": "checking", "to_account": "savings", "amount": 9.9, "memo": "x"})
    assert result["balances"] == {"checking": 90, "savings": 30.4}
    history = ledger.call("history", {"account": "checking"})
    assert [t["kind"] for t in history["transactions"]] == ["deposit", "deposit", "withdrawal", "transfer_out"]
    assert history["transactions"][1]["memo"] == "coffee refund"
    assert ledger.call("history", {"account": "checking", "limit": 1})["transactions"][0]["counterparty"] == "savings"
    assert ledger.call("list_accounts") == {"accounts": {"checking": 90, "savings": 30.4}}
    assert ledger.call("balance", {"account": "savings"}) == {"account": "savings", "balance": 30.4}


@pytest.mark.parametrize(("name", "arguments", "needle"), [
    ("withdraw", {"account": "savings", "amount": 30}, "insufficient funds: savings has 20.5, needs 30"),
    ("transfer", {"from_account": "savings", "to_account": "checking", "amount": 20.51}, "insufficient funds"),
    ("transfer", {"from_account": "savings", "to_account": "savings", "amount": 1}, "must differ"),
    ("deposit", {"account": "chequing", "amount": 1}, "did you mean 'checking'"),
    ("deposit", {"account": "checking", "amount": 1.005}, "at most two decimals"),
    ("deposit", {"account": "checking", "amount": 0}, "must be positive"),
    ("deposit", {"account": "checking", "amount": -3}, "must be positive"),
    ("deposit", {"account": "checking", "amount": "5"}, "argument 'amount' must be number, got string"),
    ("deposit", {"account": "checking"}, "missing required argument 'amount'"),
    ("deposit", {"account": "checking", "amount": 1e30}, "too large"),
    ("history", {"account": "checking", "limit": 0}, "must be >= 1"),
])
def test_refused_calls_change_nothing(name: str, arguments: dict, needle: str) -> None:
    ledger = fresh()
    before = ledger.snapshot()
    assert needle in ledger.call(name, arguments)["error"]
    assert ledger.snapshot() == before


def test_snapshot_ignores_posting_order_but_not_postings() -> None:
    a, b = fresh(), fresh()
    a.call("deposit", {"account": "checking", "amount": 5, "memo": "x"})
    a.call("withdraw", {"account": "savings", "amount": 2, "memo": "y"})
    b.call("withdraw", {"account": "savings", "amount": 2, "memo": "y"})
    b.call("deposit", {"account": "checking", "amount": 5, "memo": "x"})
    assert a.snapshot() == b.snapshot()
    c = fresh()
    c.call("deposit", {"account": "checking", "amount": 3, "memo": "x"})
    c.call("withdraw", {"account": "savings", "amount": 2, "memo": "y"})
    c.call("deposit", {"account": "checking", "amount": 2, "memo": "x"})
    assert c.snapshot()["accounts"] == a.snapshot()["accounts"]
    assert c.snapshot() != a.snapshot()  # same balances, different postings: not the same ledger


def test_bad_scenarios_are_refused() -> None:
    with pytest.raises(ValueError):
        Ledger({"Checking": 1})
    with pytest.raises(ValueError):
        Ledger({"a": -1})
    with pytest.raises(ValueError):
        Ledger({"a": 1.001})
    with pytest.raises(ValueError):
        Ledger({"a": 1}, [{"account": "b", "kind": "deposit", "amount": 1}])


OPS = st.lists(st.tuples(
    st.sampled_from(["deposit", "withdraw", "transfer"]),
    st.sampled_from(["checking", "savings"]),
    st.integers(1, 5000),
), max_size=25)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(ops=OPS)
def test_balances_stay_exact_and_never_negative(ops) -> None:
    ledger = Ledger({"checking": 10, "savings": 10})
    cents = {"checking": 1000, "savings": 1000}
    for name, account, amount in ops:
        other = "savings" if account == "checking" else "checking"
        if name == "transfer":
            result = ledger.call(name, {"from_account": account, "to_account": other, "amount": amount / 100})
        else:
            result = ledger.call(name, {"account": account, "amount": amount / 100})
        ok = "error" not in result
        assert ok == (name == "deposit" or cents[account] >= amount)
        if ok:
            sign = 1 if name == "deposit" else -1
            cents[account] += sign * amount
            if name == "transfer":
                cents[other] += amount
        snap = ledger.snapshot()["accounts"]
        assert {k: round(v * 100) for k, v in snap.items()} == cents
        assert min(cents.values()) >= 0
