"""The format check: a policy is fit to measure a curriculum only if it answers in each shape of its family."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.models.tiny import build_tiny_model
from spade_core.smallworld.family import CHAIN_FAMILY, DEPTHS, FAMILY
from spade_core.smallworld.format_check import FormatReport, _in_third, _relay_form, check_format
from spade_core.smallworld.policy import tokenizer_text


def test_a_relay_reply_is_well_formed_only_with_its_depths_letters_then_the_letter_shown() -> None:
    assert _relay_form("h a c", 2, "c") and _relay_form("b b c", 2, "c")  # form, not content: the links are secret
    assert not _relay_form("h c", 2, "c") and not _relay_form("h a k c", 2, "c") and not _relay_form("h a d", 2, "c")
    assert not _relay_form("h zz c", 2, "c") and not _relay_form("", 1, "c")


def test_a_hinted_link_counts_only_inside_the_named_third() -> None:
    assert _in_third("a f c", 2, 1) and not _in_third("f a c", 2, 1) and not _in_third("a f", 2, 1)


def test_the_report_names_every_shape_under_the_floor() -> None:
    report = FormatReport(shares={"repeat copy": 1.0, "relay depth 1 form": 0.5}, samples=8)
    assert not report.fit and report.failing == {"relay depth 1 form": 0.5}
    assert "NOT fit" in report.line() and "relay depth 1 form" in report.line()
    assert FormatReport(shares={"repeat copy": 0.95}, samples=8).fit


@pytest.mark.parametrize("family", [FAMILY, CHAIN_FAMILY])
def test_an_untaught_policy_is_not_fit(family: str, tmp_path: Path) -> None:
    policy = build_tiny_model(tmp_path / "policy", vocab_size=384, text=tokenizer_text(family))
    report = check_format(policy, family, samples=8)
    depths = DEPTHS if family == CHAIN_FAMILY else 1
    assert len(report.shares) == 1 + 3 * depths
    assert not report.fit and report.shares["repeat copy"] < 0.5
