"""The validation pipeline, run for real through the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.gym_bridge import open_store
from spade_core.validation import ProbeThresholds, ValidationConfig, validate_many, validate_source
from spade_core.validation.episodes import constant_policy, reference_policy
from spade_core.validation.pipeline import record_outcome
from spade_core.validation.stage_list import STAGES
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

CORPUS = Path(__file__).parent / "corpus"
GOOD = (CORPUS / "good_secret_number.py").read_text()


def expected_stage(path: Path) -> str:
    return path.read_text().splitlines()[0].split(":", 1)[1].strip()


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.stem)
def test_each_broken_candidate_fails_at_its_stage(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    expected = expected_stage(path)
    assert (report.failed_stage or "accepted") == expected, report.message
    if expected != "accepted":
        failed = next(s for s in report.stages if s.failed)
        assert failed.stage == expected and failed.observed and failed.fix
        assert report.status == "failed"
        assert "To fix:" in report.repair_message()


def test_messages_name_the_problem() -> None:
    messages = {p.stem: validate_source(p.read_text()).message for p in CORPUS.glob("*.py")}
    assert "SyntaxError" in messages["syntax_error"]
    assert "2 environment classes" in messages["two_classes"]
    assert "import of 'os' is not allowed" in messages["forbidden_import"]
    assert "did not finish in time" in messages["infinite_loop_reset"]
    assert "must return (observation, info)" in messages["wrong_return_types"]
    assert "diverged" in messages["nondeterministic"]
    assert "right after reset" in messages["success_at_reset"]
    assert "'\\\\boxed{0}' repeated every turn' wins" in messages["random_policy_wins"]
    assert "reference solution solves only" in messages["reference_fails"]
    assert "one higher '\\\\boxed{841}' was accepted" in messages["verifier_too_loose"]
    assert "outside the declared" in messages["reward_out_of_range"]
    assert "states the answer's value" in messages["hint_has_answer"]
    assert "following the hint's instructions wins" in messages["copy_hint_wins"]
    assert "grounding" in messages["no_grounding"]


def test_duplicate_of_a_stored_env_is_caught_before_anything_runs(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        first = record_outcome(store, GOOD, validate_source(GOOD, store=store))
        assert first.accepted and first.env_id == "spade/SecretNumber-v0"
        again = validate_source(GOOD.replace("# expect: accepted", "# reformatted copy"), store=store)
        assert again.status == "duplicate" and again.failed_stage == "exact_duplicate"
        assert [s.stage for s in again.failures] == ["exact_duplicate"]
        # no candidate code runs (the stored record's report holds the rest): only the static policy check did
        assert {s.stage for s in again.stages if s.verdict != "not_run"} == {"structure", "exact_duplicate", "policy"}
        assert "spade/SecretNumber-v0" in again.message


def test_near_duplicate_by_memory_similarity(store_path: Path) -> None:
    from spade_core.memory.behaviour import BehaviourIndex

    twin = GOOD.replace("SecretNumber", "Twin").replace("self.target", "self.hidden")
    with RegistryStore(store_path) as store:
        assert record_outcome(store, twin, validate_source(twin)).env_id == "spade/Twin-v0"
        report = validate_source(GOOD, memory=BehaviourIndex(store))
    assert report.status == "duplicate" and report.failed_stage == "novelty"
    assert "spade/Twin-v0" in report.message


def test_calibration_probe_flags_trivial_and_impossible() -> None:
    config = ValidationConfig(probe=ProbeThresholds(episodes=4))
    trivial = validate_source(GOOD, config=config, probe=reference_policy)
    assert trivial.status == "trivial" and trivial.failed_stage == "calibration"
    impossible = validate_source(GOOD, config=config, probe=constant_policy)
    assert impossible.status == "impossible"
    details = impossible.stages[-1].details
    assert details["p_hint"] == 0.0 and details["p_nohint"] == 0.0


def test_outcomes_are_recorded_with_reports(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        bad = (CORPUS / "verifier_too_loose.py").read_text()
        report = record_outcome(store, bad, validate_source(bad))
        assert report.env_id is None
        record = store.find_by_hash(report.content_hash)
        assert record is not None and record.status is Status.FAILED and record.failed_stage == "verifier"
        assert record.report is not None and record.report["stage"] == "verifier"
        assert record.trust is Trust.DESIGNER


def test_a_hanging_candidate_does_not_stall_the_batch() -> None:
    sources = [(p.name, p.read_text()) for p in sorted(CORPUS.glob("*.py"))]
    reports = validate_many(sources, workers=4)
    assert [r.file for r in reports] == [name for name, _ in sources]
    verdicts = {r.file: r.failed_stage or "accepted" for r in reports}
    assert verdicts["infinite_loop_reset.py"] == "instantiate"
    assert verdicts["good_secret_number.py"] == "accepted"


def _bundled_ids() -> list[str]:
    return [r.env_id for r in open_store().query(status=Status.ACCEPTED, trust=Trust.BUNDLED) if r.env_id]


@pytest.mark.parametrize("env_id", _bundled_ids())
def test_bundled_seed_environments_pass(env_id: str) -> None:
    report = validate_source(open_store().get(env_id).code, file=env_id)
    assert report.accepted, report.message


def _pool_workers() -> set[int]:
    from spade_core.sandbox import default_pool

    pool = default_pool()
    return set(pool.worker_pids()) | {pool.launcher_pid} - {None}


def _children() -> set[int]:
    """Live descendants; one that exits between the listing and its status check is not live."""
    live = set()
    for process in psutil.Process().children(recursive=True):
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                live.add(process.pid)
        except psutil.NoSuchProcess:
            continue
    return live


_EDITS = st.sampled_from([
    ("return", "return None and"), ("self.", "self.x."), ("1.0", "'1'"), (":", ""), ("(", "(("), ("rng", "rnd"),
    ("True", "False"), ("def ", "async def "), ("import", "from"), ("{", "["), ("\n", "\n    "),
])


@settings(max_examples=25)
@given(edits=st.lists(st.tuples(_EDITS, st.integers(0, 50)), min_size=1, max_size=3))
def test_fuzzed_mutations_always_end_with_a_verdict(edits: list) -> None:
    source = GOOD
    for (old, new), nth in edits:
        positions = [i for i in range(len(source)) if source.startswith(old, i)]
        if positions:
            at = positions[nth % len(positions)]
            source = source[:at] + new + source[at + len(old):]
    before = _children()
    report = validate_source(source, config=ValidationConfig(seeds=(0, 1, 2), baseline_episodes=3))
    assert report.verdict in {"accepted", "rejected"}
    assert report.accepted or report.failed_stage
    assert json.dumps(report.to_dict())
    assert _children() <= before | _pool_workers(), "validation left a process behind"


@settings(max_examples=25)
@given(text=st.text(max_size=300))
def test_arbitrary_text_is_rejected_cleanly(text: str) -> None:
    report = validate_source(text)
    assert not report.accepted and report.failed_stage in {"structure", "policy"}


def test_cli_validate_json_and_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["validate", str(CORPUS), "--json"])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == len(list(CORPUS.glob("*.py")))
    for row in rows:
        assert {"file", "verdict", "stage", "message"} <= set(row)
        assert (row["stage"] or "accepted") == expected_stage(Path(row["file"]))
    good = runner.invoke(cli, ["validate", str(CORPUS / "good_secret_number.py")])
    assert good.exit_code == 0 and "ACCEPTED" in good.output
    missing = runner.invoke(cli, ["validate", str(tmp_path / "nope.py")])
    assert missing.exit_code == 2


def test_cli_register_then_show_report(tmp_path: Path) -> None:
    store = tmp_path / "cli.sqlite3"
    runner = CliRunner()
    candidate = tmp_path / "secret.py"
    candidate.write_text(GOOD)
    result = runner.invoke(cli, ["--store", str(store), "validate", str(candidate), "--register", "--json"])
    assert result.exit_code == 0, result.output
    env_id = json.loads(result.stdout.splitlines()[0])["env_id"]
    assert env_id == "spade/SecretNumber-v0"
    shown = runner.invoke(cli, ["--store", str(store), "show", env_id, "--report"])
    assert shown.exit_code == 0 and '"verdict": "accepted"' in shown.output


def test_every_failing_stage_is_reported_at_once_and_dependants_say_what_they_need() -> None:
    """A module with a loose verifier and a hint that states the answer fails both stages in one report (and the
    repair prompt names both); the stages that need a failed one are not run, naming it."""
    loose = (CORPUS / "verifier_too_loose.py").read_text()
    both = loose.replace('return f"The number is {parity}; halve the interval each time."',
                         'return f"The number is {self.target}."')
    assert both != loose
    report = validate_source(both)
    assert [s.stage for s in report.failures] == ["verifier", "hint"], report.repair_message()
    assert report.failed_stage == "verifier" and report.status == "failed"
    repair = report.repair_message()
    assert "2 failing stages ('verifier', 'hint')" in repair and "[verifier]" in repair and "[hint]" in repair
    assert "Also failing: hint" in report.message
    data = report.to_dict()
    assert data["stage"] == "verifier" and data["failed_stages"] == ["verifier", "hint"]  # old readers: first

    forbidden = (CORPUS / "forbidden_import.py").read_text()
    blocked = validate_source(forbidden)
    assert [s.stage for s in blocked.failures] == ["policy"]
    waiting = {s.stage: s.observed for s in blocked.not_run}
    assert waiting["instantiate"] == "needs 'policy', which failed"  # no code runs after policy fails
    assert waiting["contract"] == "needs 'instantiate', which could not run"
    concerned = {s.name for s in STAGES if s.concerns(blocked.domain)}  # the others are passed over, not waiting
    assert set(waiting) == concerned - {"structure", "exact_duplicate", "policy"}
    assert "Not checked yet" in blocked.repair_message() and "needs 'policy'" in blocked.repair_message()
    assert blocked.to_dict()["not_run"][0] == {"stage": "instantiate", "why": "needs 'policy', which failed"}
