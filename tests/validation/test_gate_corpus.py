"""The gate's corpora: environments with one deliberate flaw each (per class) and their good twins, run through the
public path. Every flawed one is rejected at the stage its header names with a message that says what was seen;
every good one is accepted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_support import carried_members

from spade_core.cli.main import cli
from spade_core.validation import validate_source

GATE = Path(__file__).parent / "gate"
GOOD = sorted((GATE / "good").glob("*.py"))
FLAWED = sorted(p for p in GATE.glob("*/*.py") if p.parent.name != "good")
CLASSES = sorted({p.parent.name for p in FLAWED})


def header(path: Path) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a corpus file (expect, twin, flaw)."""
    fields = {}
    for line in path.read_text().splitlines():
        match = re.match(r"# (\w+): (.*)", line)
        if not match:
            break
        fields[match.group(1)] = match.group(2).strip()
    return fields



def test_every_class_has_three_flawed_environments_with_good_twins() -> None:
    assert set(CLASSES) >= {"hint_leak", "lax_verifier", "trivial", "impossible", "nondeterministic",
                            "reward_semantics", "seat_bias"}
    for cls in CLASSES:
        members = [p for p in FLAWED if p.parent.name == cls]
        assert len(members) + len(carried_members(cls)) >= 3, cls
        for path in members:
            fields = header(path)
            assert {"expect", "twin", "flaw"} <= set(fields), path
            assert (GATE / "good" / f"{fields['twin']}.py").exists(), path


@pytest.mark.parametrize("path", FLAWED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_flawed_environment_is_rejected_at_its_stage(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    expected = header(path)["expect"]
    assert not report.accepted, f"{path.name} ({header(path)['flaw']}) was accepted"
    assert report.failed_stage == expected, report.message
    failed = report.failures[0]
    assert failed.observed and failed.fix and failed.causes
    assert re.search(r"\d", failed.observed), "the message names what was observed (seeds, counts, values)"


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_twin_is_accepted(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    assert report.accepted, report.message


def test_rejection_messages_name_the_flaw() -> None:
    expectations = {
        "hint_leak/hint_reversed": "holds the answer reversed",
        "hint_leak/hint_rot13": "rot-13",
        "hint_leak/hint_place_values": "place values",
        "hint_leak/hint_number_words": "in words",
        "hint_leak/hint_offset_after_first_turn": "turn 2",
        "hint_leak/hint_short_move_in_prose": "next action",
        "hint_leak/hint_instruction_backdoor": "following the hint",
        "hint_leak/hint_hexadecimal": "hexadecimal",
        "lax_verifier/lax_prefix": "digit appended",
        "lax_verifier/lax_sign_flip": "sign-flipped",
        "lax_verifier/strict_string_compare": "judged wrong",
        "trivial/trivial_unenforced_limit": "enumerating",
        "trivial/trivial_boxed_one": "\\\\boxed{1}",
        "impossible/impossible_some_seeds": "fails on seeds",
        "impossible/impossible_hidden_count": "never sees",
        "nondeterministic/nondet_hint_moves_secret": "privileged_hint()",
        "reward_semantics/reward_nan": "not a finite number",
        "reward_semantics/reward_obs_doubling": "characters",
        "reward_semantics/reward_success_not_terminal": "terminated is False",
        "seat_bias/seat_one_always_wins": "seat 1 wins",
    }
    for name, needle in expectations.items():
        report = validate_source((GATE / f"{name}.py").read_text())
        assert needle in report.message, (name, report.message)


def test_cli_json_gives_the_same_verdicts() -> None:
    runner = CliRunner()
    for folder in ("good", "seat_bias"):
        result = runner.invoke(cli, ["validate", str(GATE / folder), "--json"])
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(rows) == len(list((GATE / folder).glob("*.py")))
        for row in rows:
            expected = header(Path(row["file"]))["expect"]
            assert (row["stage"] or "accepted") == expected, row["message"]
        assert result.exit_code == (0 if folder == "good" else 1)
