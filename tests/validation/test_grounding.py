"""Grounding measures what the task's answers take from the document: document facts in the code are perturbed and
the reference replayed. Pasted text, labels, ENV_SPEC notes and vocabulary decide nothing. The corpus in
``grounding_corpus/`` holds honest grounded tasks, document-decorated made-up tasks and document-free tasks (bundled
seeds), against documents with and without proper nouns; its README table is checked against the measurement."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.validation import ValidationConfig, validate_source
from spade_core.validation.config import DESIGN_VALIDATION
from spade_core.validation.grounding import document_literals, perturbed, terms_of
from spade_core.validation.pipeline import new_candidate, record_outcome, sandbox_handles
from spade_core.validation.report import StageResult
from spade_core.validation.stage_list import new_report, run_stages, stage_named
from spade_registry.store import RegistryStore

HERE = Path(__file__).parent / "grounding_corpus"
REVOLUTION = "french_revolution.txt"
PIE = "pie_baking.txt"  # no proper nouns
GROUNDED, DECORATED, FREE = "grounded", "decorated", "document-free"
CASES = [
    ("grounded_revolution_dates.py", REVOLUTION, GROUNDED),
    ("grounded_revolution_wordgame.py", REVOLUTION, GROUNDED),
    ("grounded_pie_scaling.py", PIE, GROUNDED),
    ("grounded_pie_oven.py", PIE, GROUNDED),
    ("ungrounded_multiplication_label.py", REVOLUTION, DECORATED),
    ("decorated_multiplication_quote.py", REVOLUTION, DECORATED),
    ("decorated_pie_guessing.py", PIE, DECORATED),
    ("decorated_constant_year.py", REVOLUTION, DECORATED),
    ("spade_domains.math.seeds.arithmetic_chain", REVOLUTION, FREE),
    ("spade_domains.games.seeds.mastermind", PIE, FREE),
    ("spade_domains.code.seeds.implement_function", REVOLUTION, FREE),
    ("spade_domains.tool_use.seeds.pay_invoices", PIE, FREE),
]
# the stages grounding needs (exact_duplicate skips without a store): the rest of the gate is not under test here
NEEDED = ("structure", "exact_duplicate", "policy", "instantiate", "contract", "determinism", "reference", "grounding")


def source_of(case: str) -> str:
    return (HERE / case).read_text() if case.endswith(".py") else SeedEnvironment(case).source()


def document(name: str) -> str:
    return (HERE / name).read_text()


def grounding_of(source: str, doc: str, config: ValidationConfig = DESIGN_VALIDATION) -> StageResult:
    candidate = new_candidate(source, file="<corpus>", config=config, document=doc)
    report = new_report(candidate)
    try:
        run_stages([stage_named(name) for name in NEEDED], candidate, report)
    finally:
        if candidate.envs is not None:
            candidate.envs.close_all()
    assert [s.stage for s in report.failures] in ([], ["grounding"]), report.repair_message()
    return report.stages[-1]


@pytest.fixture(scope="module")
def measured() -> dict[str, tuple[StageResult, StageResult]]:
    """Each case's grounding in the designer loop (DESIGN_VALIDATION) and under ``spade validate --document``."""
    out = {}
    for case, doc, _ in CASES:
        out[case] = (grounding_of(source_of(case), document(doc)),
                     grounding_of(source_of(case), document(doc), ValidationConfig()))
    return out


@pytest.mark.parametrize(("case", "doc", "kind"), CASES)
def test_honest_tasks_score_as_grounded_and_decorated_or_free_ones_do_not(measured, case, doc, kind) -> None:
    loop, strict = measured[case]
    if kind == GROUNDED:
        assert loop.details["grounded"] and loop.verdict == "passed" and strict.verdict == "passed", loop.observed
        assert loop.details["facts"] >= 3 and loop.details["variety"] >= 2  # seeds draw different facts
    else:
        assert not loop.details["grounded"] and loop.details["score"] < 0.5, loop.observed
        assert strict.verdict == "failed", strict.observed  # spade validate --document asks for grounding
    assert loop.verdict == "passed"  # the designer loop keeps every task, with its score: measured, never skipped
    if kind == FREE:
        assert loop.details["score"] == 0.0
    if case == "decorated_constant_year.py":
        assert loop.details["variety"] == 1  # the same bolted-on year decides every seed
    if loop.details["quoted"] and loop.details["dependence"] == 0.0:
        assert loop.details["decorated"] and "quote the document" in loop.observed


def test_the_readme_table_is_the_measurement(measured) -> None:
    rows = {}
    for line in (HERE / "README.md").read_text().splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in measured:
            rows[cells[0]] = cells
    assert set(rows) == set(measured)
    for case, doc, kind in CASES:
        loop, strict = measured[case]
        d = loop.details
        expected = [case, doc, kind, f"{d['score']:.2f}", f"{d['dependence']:.2f} / {d['facts']} / {d['variety']}",
                    loop.verdict.value, strict.verdict.value]
        assert rows[case] == expected, (rows[case], expected)


def test_pasted_document_text_and_spec_claims_change_nothing() -> None:
    """Quoting the document in the observation and naming it in ENV_SPEC do not move the score either way."""
    revolution = document(REVOLUTION)
    sentence = revolution.split(". ")[3].replace("\n", " ")
    grounded = source_of("grounded_revolution_dates.py")
    pasted = grounded.replace('return f"In which year', f'return "{sentence}. " + f"In which year')
    claimed = grounded.replace('"The document\'s chronology."', repr(revolution[:400].replace("\n", " ")))
    assert pasted != grounded and claimed != grounded
    base = grounding_of(grounded, revolution).details["score"]
    assert grounding_of(pasted, revolution).details["score"] == base == 1.0
    assert grounding_of(claimed, revolution).details["score"] == base
    label = source_of("ungrounded_multiplication_label.py")
    quoted = label.replace('f"French Revolution drill:', f'"{sentence}. " + f"French Revolution drill:')
    result = grounding_of(quoted, revolution)
    assert result.details["score"] == 0.0 and result.details["decorated"]


def test_document_words_in_identifiers_and_unused_constants_do_not_count() -> None:
    sneaky = source_of("ungrounded_multiplication_label.py").replace("self.a", "self.bastille_versailles").replace(
        "        self.b = 0\n", "        self.b = 0\n        self.notes = ['Robespierre', 'Napoleon', 1789, 1799]\n")
    result = grounding_of(sneaky, document(REVOLUTION))
    assert result.details["document_literals"] >= 4 and result.details["score"] == 0.0


def test_the_same_task_against_another_document_scores_zero() -> None:
    other = "Photosynthesis converts light energy into chemical energy stored in glucose inside chloroplasts."
    result = grounding_of(source_of("grounded_revolution_dates.py"), other)
    assert result.details["score"] == 0.0 and result.verdict == "passed"  # the designer loop keeps it, scored
    strict = validate_source(source_of("grounded_revolution_dates.py"), document=other)
    assert strict.failed_stage == "grounding"


def test_without_a_document_a_note_is_skipped_not_passed() -> None:
    report = validate_source(source_of("grounded_revolution_dates.py"))
    stage = next(s for s in report.stages if s.stage == "grounding")
    assert stage.verdict == "skipped" and "no grounding document" in stage.observed
    assert report.accepted and "skipped" in report.message and "every stage passed" not in report.message


def test_the_score_is_kept_in_the_report_and_record(tmp_path: Path) -> None:
    report = validate_source(source_of("grounded_pie_oven.py"), document=document(PIE),
                             config=replace(DESIGN_VALIDATION, seeds=tuple(range(12))))
    assert report.accepted, report.message
    data = report.to_dict()
    assert data["grounding_score"] == report.grounding_score == 1.0
    store = RegistryStore(tmp_path / "store.sqlite3")
    stored = record_outcome(store, source_of("grounded_pie_oven.py"), report)
    assert store.get(stored.env_id).stats["grounding_score"] == 1.0
    assert store.get(stored.env_id).report["grounding_score"] == 1.0



def test_the_perturbed_copies_of_a_candidate_are_one_family() -> None:
    """Every perturbed copy is made as one family of the candidate (so they share a sandbox worker), never with the
    candidate's own workers and never with another candidate's copies."""
    families: dict[str, set[str | None]] = {}

    def recording(source: str, env_id: str, *, budget=None, family=None):
        families.setdefault(env_id, set()).add(family)
        return sandbox_handles(source, env_id, budget=budget, family=family)

    for case in ("grounded_pie_scaling.py", "grounded_pie_oven.py"):
        report = validate_source(source_of(case), document=document(PIE), handles=recording)
        assert report.accepted, report.message
    copies = {env_id: found for env_id, found in families.items() if env_id.startswith("grounding:")}
    assert len(copies) == 2 and all(len(found) == 1 and None not in found for found in copies.values())
    assert len(set().union(*copies.values())) == 2
    assert all(found == {None} for env_id, found in families.items() if env_id not in copies)

def test_literals_and_perturbation() -> None:
    found = document_literals(source_of("grounded_pie_oven.py"), document(PIE))
    assert {lit.value for lit in found} >= {200, 45, 160, 50, 190, 60}
    assert "PieOvenSettings" not in {lit.value for lit in found}  # ENV_SPEC is not task data
    assert perturbed(1789) != 1789 and perturbed("Bastille") != "Bastille"
    assert re.fullmatch(r"[A-Za-z]+", str(perturbed("Bastille")))
    assert {"storming", "bastille", "1789"} <= terms_of("The Storming of the Bastille in 1789")


def test_spade_validate_takes_a_document(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "registry.sqlite3")
    bad = runner.invoke(cli, ["--store", store, "validate", str(HERE / "ungrounded_multiplication_label.py"),
                              "--document", str(HERE / REVOLUTION), "--json"])
    assert bad.exit_code == 1 and json.loads(bad.output.splitlines()[-1])["stage"] == "grounding"
    good = runner.invoke(cli, ["--store", store, "validate", str(HERE / "grounded_revolution_dates.py"),
                               "--document", str(HERE / REVOLUTION), "--json"])
    data = json.loads(good.output.splitlines()[-1])
    assert good.exit_code == 0 and data["verdict"] == "accepted", data["message"]
    assert "grounding" not in {s["stage"] for s in data["skipped"]}
    missing = runner.invoke(cli, ["--store", store, "validate", str(HERE / "grounded_revolution_dates.py"),
                                  "--document", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt" in missing.output
