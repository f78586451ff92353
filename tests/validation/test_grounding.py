"""Grounding against the document's content: only what the agent sees while playing counts, and not the terms the
environment names itself (ENV_SPEC), its identifiers, stopwords or generic task wording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.validation import validate_source
from spade_core.validation.grounding import identifier_terms, spec_terms, terms_of

HERE = Path(__file__).parent / "grounding_corpus"
DOCUMENT = (HERE / "french_revolution.txt").read_text()
LABELLED = (HERE / "ungrounded_multiplication_label.py").read_text()
GROUNDED = (HERE / "grounded_revolution_dates.py").read_text()


def grounding(report):
    return next(s for s in report.stages if s.stage == "grounding")


def test_a_label_on_generated_arithmetic_is_not_grounding() -> None:
    report = validate_source(LABELLED, document=DOCUMENT)
    assert report.failed_stage == "grounding", report.message
    assert "uses 0 terms of the document" in report.message
    assert "french" in report.message and "do not count" in report.message  # names what it ignored


def test_a_task_built_from_the_document_passes() -> None:
    report = validate_source(GROUNDED, document=DOCUMENT)
    assert report.accepted, report.message
    stage = grounding(report)
    assert stage.verdict == "passed" and {"bastille", "1789"} <= set(stage.details["used"])


def test_the_same_task_against_another_document_fails() -> None:
    other = "Photosynthesis converts light energy into chemical energy stored in glucose inside chloroplasts."
    report = validate_source(GROUNDED, document=other)
    assert report.failed_stage == "grounding", report.message


def test_document_words_hidden_in_identifiers_and_constants_do_not_count() -> None:
    # the document's words as variable names and as a constant the agent never sees
    sneaky = LABELLED.replace("self.a", "self.bastille_versailles").replace(
        "        self.b = 0\n", "        self.b = 0\n        self.notes = 'Robespierre Napoleon Brumaire Directory'\n")
    report = validate_source(sneaky, document=DOCUMENT)
    assert report.failed_stage == "grounding", report.message


def test_a_decorated_generated_task_fails_on_share() -> None:
    # a few document words in the text, but the task itself (many generated words) is not from the document
    decorated = LABELLED.replace(
        'return f"French Revolution drill: compute {self.a} * {self.b}. Answer as \\\\boxed{{N}}.", {}',
        'return (f"Tennis Court Oath bonus round. Baker Quincy sells {self.a} crates of turnips, parsnips, '
        'radishes and marrows for {self.b} coins each to grocers in Lambeth; how many coins? '
        'Answer as \\\\boxed{{N}}."), {}')
    assert decorated != LABELLED
    report = validate_source(decorated, document=DOCUMENT)
    assert report.failed_stage == "grounding", report.message
    assert "content words come from the document" in report.message


def test_without_a_document_a_note_is_skipped_not_passed() -> None:
    report = validate_source(GROUNDED)
    stage = grounding(report)
    assert stage.verdict == "skipped" and "no grounding document" in stage.observed
    assert report.accepted and "skipped" in report.message and "every stage passed" not in report.message


@pytest.mark.parametrize(("text", "expected"), [
    ("The Storming of the Bastille in 1789", {"storming", "bastille", "1789"}),
    ("revolutions Revolutions", {"revolution"}),
    ("17 horses", {"horse"}),
])
def test_terms(text: str, expected: set[str]) -> None:
    assert expected <= terms_of(text) and "17" not in terms_of(text)


def test_own_terms_come_from_the_manifest_and_identifiers_not_strings() -> None:
    assert {"french", "revolution", "bastille"} <= spec_terms(LABELLED)
    idents = identifier_terms(GROUNDED)
    assert "event" in idents and "bastille" not in idents


def test_spade_validate_takes_a_document(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "registry.sqlite3")
    bad = runner.invoke(cli, ["--store", store, "validate", str(HERE / "ungrounded_multiplication_label.py"),
                              "--document", str(HERE / "french_revolution.txt"), "--json"])
    assert bad.exit_code == 1 and json.loads(bad.output.splitlines()[-1])["stage"] == "grounding"
    good = runner.invoke(cli, ["--store", store, "validate", str(HERE / "grounded_revolution_dates.py"),
                               "--document", str(HERE / "french_revolution.txt"), "--json"])
    data = json.loads(good.output.splitlines()[-1])
    assert good.exit_code == 0 and data["verdict"] == "accepted", data["message"]
    assert "grounding" not in {s["stage"] for s in data["skipped"]}
    missing = runner.invoke(cli, ["--store", store, "validate", str(HERE / "grounded_revolution_dates.py"),
                                  "--document", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt" in missing.output


def test_the_designer_skips_a_task_that_ignores_its_document_but_fails_a_false_claim() -> None:
    """In the designer loop the document is one corpus sample: a task about something else is reported with
    grounding skipped (not passed); a task that names the document's topic without using it still fails."""
    from spade_core.validation.config import DESIGN_VALIDATION

    other = "Photosynthesis converts light energy into chemical energy stored in glucose inside Chloroplasts."
    report = validate_source(GROUNDED, document=other, config=DESIGN_VALIDATION)
    assert report.status == "accepted", report.message
    assert grounding(report).verdict == "skipped" and "neither draws on its document" in grounding(report).observed
    labelled = validate_source(LABELLED, document=DOCUMENT, config=DESIGN_VALIDATION)
    assert labelled.failed_stage == "grounding" and "claims the document" in labelled.message
