"""Which tools a task forbids: a negation before the tool's name in one sentence of the first observation."""

from __future__ import annotations

import json

from spade_core.validation.forbidden_calls import forbidding_sentence
from spade_core.validation.mutations import json_call

TASK = ("Tools: list_orders, settle_order, delete_order, finish. Settle every paid order. Never call delete_order: "
        "orders are kept for the audit. Call finish when done; do not finish before every order is settled.")


def test_a_tool_named_after_a_negation_is_forbidden() -> None:
    assert forbidding_sentence(TASK, "delete_order") == "Never call delete_order: orders are kept for the audit"
    assert forbidding_sentence(TASK, "settle_order") is None
    assert forbidding_sentence(TASK, "list_orders") is None
    assert forbidding_sentence("You must not use the refund_all tool", "refund_all") is not None
    assert forbidding_sentence("The tool delete_order_line is fine. Don't call delete_order", "delete_order") == \
        "Don't call delete_order"  # a longer name holding the tool's name is not it


def test_a_name_before_the_negation_or_not_an_identifier_is_not_read_as_forbidden() -> None:
    assert forbidding_sentence("delete_order is not needed for this task", "delete_order") is None
    assert forbidding_sentence("never use (weird) tool", "(weird)") is None


def test_a_call_is_made_with_another_tool_keeping_its_arguments() -> None:
    call = json_call('{"name": "settle_order", "arguments": {"order_id": "O-123"}}')
    assert call is not None
    assert json.loads(call.calling("delete_order")) == {"name": "delete_order", "arguments": {"order_id": "O-123"}}
    flat = json_call('{"tool": "settle", "id": 4}')
    assert flat is not None and json.loads(flat.calling("drop")) == {"tool": "drop", "id": 4}
