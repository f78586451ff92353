"""The format check: a policy is fit to measure a curriculum only if it answers in each shape of its family."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.models.tiny import build_tiny_model
from spade_core.smallworld.family import (
    CHAIN_FAMILY,
    DEPTHS,
    FAMILY,
    LETTERS,
    REPEAT_HINT,
    listed_hint,
    named_hint,
)
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
    assert len(report.shares) == 2 + 3 * depths
    assert not report.fit and report.shares["repeat copy"] < 0.5


@pytest.mark.parametrize("family", [FAMILY, CHAIN_FAMILY])
def test_a_policy_that_copies_the_shown_letter_into_the_link_is_not_counted_as_reading_the_hint(
        family: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each third is asked with a shown letter from another third, so copying that letter never lands in the named
    third (whatever letter and third a single draw would have picked); the hints are the family's own."""
    import spade_core.smallworld.format_check as check

    asked: list[tuple[str, str | None]] = []

    def replies_of(observation: str, hint: str | None) -> list[str]:
        """A hint-blind copier: a relay answered with the shown letter once per link and once more, in form."""
        asked.append((observation, hint))
        letter = observation.split()[-1]
        depth = int(observation.split()[2]) if family == CHAIN_FAMILY and observation.startswith("relay") else 1
        return [" ".join([letter] * (depth + 1)) if observation.startswith("relay") else letter] * 4

    monkeypatch.setattr(check, "_sampler", lambda policy_dir, samples, seed: replies_of)
    report = check.check_format(tmp_path, family, samples=4)
    depths = range(1, DEPTHS + 1) if family == CHAIN_FAMILY else range(1, 2)
    for depth in depths:
        assert report.shares[f"relay depth {depth} hinted link"] == 0.0
        assert report.shares[f"relay depth {depth} hinted form"] == 1.0
    assert report.shares["repeat copy"] == report.shares["repeat hinted copy"] == 1.0
    hints = sorted(hint for obs, hint in asked if hint and obs.startswith("relay"))
    expected = [listed_hint(t) if family == CHAIN_FAMILY else named_hint(t) for t in range(3)]
    assert hints == sorted(expected * len(depths))
    repeat_hints = [hint for obs, hint in asked if hint and obs.startswith("repeat")]
    assert repeat_hints == ([REPEAT_HINT] if family == CHAIN_FAMILY else [named_hint(LETTERS.index(
        next(obs for obs, h in asked if h and obs.startswith("repeat")).split()[-1]) // 4)])
