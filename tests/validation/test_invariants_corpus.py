"""The invariant corpus: flawed environments of shapes the decoders and adversaries were not written for, one
class per property (purity, invariance, reward rule, swap, public information, duplicates), each with a good twin.
Every flawed one is rejected at the stage that checks its property, with a message naming the rule and what was
observed; every good one (the item-8 twins among them: a 10-digit decimal with a tolerance, a tool task whose hint
is a plan naming tools, a move game whose hint reads "front can") is accepted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from corpus_support import carried_members

from spade_core.gym_bridge import open_store
from spade_core.memory.behaviour import BehaviourIndex, record_env_factory
from spade_core.validation import validate_source
from spade_core.validation.pipeline import record_outcome
from spade_core.validation.same_draws import played, same_play
from spade_core.validation.stage_list import stage_named
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

CORPUS = Path(__file__).parent / "invariants_corpus"
GOOD = sorted((CORPUS / "good").glob("*.py"))
FLAWED = sorted(p for p in CORPUS.glob("*/*.py") if p.parent.name not in ("good", "duplicate", "rewritten"))
DUPLICATES = sorted((CORPUS / "duplicate").glob("*.py"))
REWRITTEN = sorted((CORPUS / "rewritten").glob("*.py"))
CLASSES = ("purity", "invariance", "reward_rule", "swap", "public_info", "duplicate", "read_only", "shown_values", "stalling", "seat_returns", "out_of_rules", "fixed_answer", "final_state", "rewritten")


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        match = re.match(r"# (\w+): (.*)", line)
        if not match:
            break
        fields[match.group(1)] = match.group(2).strip()
    return fields



def test_every_class_has_three_flawed_environments_with_good_twins() -> None:
    for cls in CLASSES:
        members = sorted((CORPUS / cls).glob("*.py"))
        assert len(members) + len(carried_members(cls)) >= 3, cls
        for path in members:
            fields = header(path)
            assert {"expect", "twin", "flaw"} <= set(fields), path
            assert (CORPUS / "good" / f"{fields['twin']}.py").exists(), path


@pytest.mark.parametrize("path", FLAWED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_flawed_environment_is_rejected_naming_its_property(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    expected = header(path)["expect"]
    assert not report.accepted, f"{path.name} ({header(path)['flaw']}) was accepted"
    failures = {r.stage: r for r in report.failures}
    assert expected in failures, report.message  # another stage may fail too (an ignored knob, at determinism)
    failed = failures[expected]
    assert failed.observed and failed.fix and failed.causes
    assert re.search(r"\d", failed.observed), "the message names what was observed (seeds, counts, values)"
    assert failed.details.get("rule") == stage_named(expected).rule, "the rule that failed is named"


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_twin_is_accepted(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    assert report.accepted, report.message


@pytest.mark.parametrize("path", DUPLICATES, ids=lambda p: p.stem)
def test_reworded_renamed_copy_is_a_duplicate_by_behaviour(path: Path, tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "registry.sqlite3")
    twin = (CORPUS / "good" / f"{header(path)['twin']}.py").read_text()
    assert record_outcome(store, twin, validate_source(twin)).accepted
    report = validate_source(path.read_text(), file=str(path), memory=BehaviourIndex(store))
    assert report.failed_stage == "novelty", report.message
    assert "same dynamics" in report.message and "code shape" in report.message, report.message


@pytest.mark.parametrize("path", REWRITTEN, ids=lambda p: p.stem)
def test_rewritten_copy_is_a_duplicate_by_what_it_does_on_the_same_seeds(path: Path, tmp_path: Path) -> None:
    store = RegistryStore(tmp_path / "registry.sqlite3")
    twin = (CORPUS / "good" / f"{header(path)['twin']}.py").read_text()
    assert record_outcome(store, twin, validate_source(twin)).accepted
    report = validate_source(path.read_text(), file=str(path), memory=BehaviourIndex(store))
    results = {r.stage: r for r in report.stages}
    assert results["novelty"].verdict == "passed", "the rewrite escapes the fingerprint rules"
    assert report.failed_stage == "same_draws", report.message
    failed = results["same_draws"]
    assert failed.status is Status.DUPLICATE and failed.details.get("rule") == stage_named("same_draws").rule
    assert "plays like" in failed.observed and re.search(r"\d", failed.observed), failed.observed


def test_no_two_bundled_seeds_play_alike_on_the_same_seeds() -> None:
    store = open_store()
    plays = {r.env_id: played(record_env_factory(store.get(r.env_id)))
             for r in store.query(status=Status.ACCEPTED, trust=Trust.BUNDLED) if r.env_id}
    assert len(plays) >= 10
    names = sorted(plays)
    alike = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if same_play(plays[a], plays[b]) is not None]
    assert not alike
