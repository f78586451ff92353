"""Export -> import into a fresh store on another path: same hashes, same trajectories, stats and lineage kept; ids
land in the ``spade-pack`` namespace, kept where free and versioned where another pack took them, never blocked by a
local environment of the same name; the parquet form loads with ``datasets``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pack_helpers import assert_each_resets_to_text, variant

from spade_core.gym_bridge import env_from_record, open_store, register_store, sync_seed_environments
from spade_core.packs import ExportFilter, RunHistory, export_pack, import_pack, open_pack
from spade_core.packs.schema import INDEX_FILE, PARQUET_FILE
from spade_registry.records import Trust


def play(record, seed: int, actions: list[str] | None = None) -> tuple[list, list[str]]:
    """Observations, rewards and flags of one episode; the actions are the reference's unless given."""
    env = env_from_record(record)
    try:
        obs, info = env.reset(seed=seed)
        steps, taken = [(obs, info.get("turn"))], []
        for turn in range(8):
            action = actions[turn] if actions is not None else env.reference_action()
            taken.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            steps.append((obs, reward, terminated, truncated, info.get("success")))
            if terminated or truncated or (actions is not None and turn + 1 == len(actions)):
                break
        return steps, taken
    finally:
        env.close()


@pytest.mark.parametrize("fmt", ["folder", "tar", "parquet"])
def test_round_trip_keeps_hashes_trajectories_stats_and_lineage(tmp_path: Path, make_source, fmt: str) -> None:
    names = [f"PackTrip{fmt.title()}A", f"PackTrip{fmt.title()}B"]
    source = make_source(names)
    run = RunHistory(run="run-7", accepted_in={f"spade/{names[0]}-v0": 2},
                     regret={f"spade/{names[0]}-v0": [{"iteration": 2, "regret": 0.5, "p_hint": 1.0, "p_nohint": 0.5}]})
    out = tmp_path / {"folder": "pack", "tar": "pack.tar.gz", "parquet": "pack-hf"}[fmt]
    exported = export_pack(source, out, name="trip", fmt=fmt, filters=ExportFilter(domains=("games",)))
    assert [e.pack_id for e in exported.environments] == [f"spade/{n}-v0" for n in names]

    target = open_store(tmp_path / "elsewhere" / "fresh.sqlite3")
    sync_seed_environments(target)
    report = import_pack(open_pack(str(exported.path)), target)
    assert report.count("accepted") == 2, [o.to_dict() for o in report.outcomes]
    for name in names:
        before, after = source.get(f"spade/{name}-v0"), target.get(f"spade-pack/{name}-v0")
        assert after.content_hash == before.content_hash and after.trust is Trust.DESIGNER
        assert after.stats["pack"]["plays"] == before.stats["episodes"]
        assert after.stats["pack"]["regret"] == pytest.approx(before.stats["regret"])
        lineage = after.provenance["lineage"]
        assert lineage["document_title"] == before.provenance["doc_title"] and lineage["source"] == "designer"
        assert lineage["parent"] is not None and lineage["parent_by"].startswith("memory:")
        assert after.report is not None and after.report["status"] == "accepted"  # the local gate's own report
        steps, actions = play(before, seed=3)
        assert play(after, seed=3, actions=actions)[0] == steps
        assert play(after, seed=5, actions=["take 1 from heap 1"])[0] == play(before, 5, ["take 1 from heap 1"])[0]

    # the run's lineage and regret history travel too
    again = export_pack(source, tmp_path / "with-run", name="trip", run=run)
    (env,) = again.environments
    assert env.lineage.run == "run-7" and env.lineage.iteration == 2 and env.stats.regret_history[0]["regret"] == 0.5

    # importing again skips everything as a duplicate of what is now stored
    second = import_pack(open_pack(str(exported.path)), target)
    assert second.count("duplicate") == 2 and second.validated == 0


def test_ids_are_kept_where_free_and_versioned_where_taken(tmp_path: Path, make_source) -> None:
    source = make_source(["PackIdsKeep", "PackIdsClash"])
    pack_dir = export_pack(source, tmp_path / "pack", name="ids", find_parents=False).path
    target = open_store(tmp_path / "target.sqlite3")
    sync_seed_environments(target)
    from spade_core.validation.pipeline import record_outcome, validate_source

    other = variant("PackIdsClash", note=" + '-local'")
    record_outcome(target, other, validate_source(other, store=target))
    report = import_pack(open_pack(str(pack_dir)), target)
    by_pack = {o.pack_id: o for o in report.outcomes}
    assert by_pack["spade/PackIdsKeep-v0"].env_id == "spade-pack/PackIdsKeep-v0"
    # a local environment of the same name lives in the other namespace: the pack's id is free
    assert by_pack["spade/PackIdsClash-v0"].env_id == "spade-pack/PackIdsClash-v0"
    assert target.get("spade/PackIdsClash-v0").provenance.get("source") != "pack"

    # another pack claiming the same id with other code gets the next version in the pack namespace
    third_code = variant("PackIdsClash", note=" + '-third'")
    third_source = open_store(tmp_path / "third.sqlite3")
    record_outcome(third_source, third_code, validate_source(third_code, store=third_source))
    third = import_pack(open_pack(str(export_pack(third_source, tmp_path / "pack3", name="ids3",
                                                  find_parents=False).path)), target)
    (clash,) = third.outcomes
    assert clash.verdict == "accepted" and clash.env_id == "spade-pack/PackIdsClash-v1" and "taken" in clash.reason, \
        clash.to_dict()
    register_store(tmp_path / "target.sqlite3", sync_seeds=False)
    assert_each_resets_to_text(("spade-pack/PackIdsClash-v1", "spade-pack/PackIdsClash-v0", "spade/PackIdsClash-v0"))


def test_parquet_pack_loads_with_datasets_offline(tmp_path: Path, make_source, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets

    source = make_source(["PackParquetOne"])
    folder = export_pack(source, tmp_path / "hf", name="pq", fmt="parquet", find_parents=False).path
    data = datasets.load_dataset("parquet", data_files=str(folder / PARQUET_FILE), split="train",
                                 cache_dir=str(tmp_path / "cache"))
    (row,) = list(data)
    record = source.get("spade/PackParquetOne-v0")
    assert row["id"] == record.env_id and row["content_hash"] == record.content_hash and row["module"] == record.code
    assert json.loads(row["stats"])["plays"] == record.stats["episodes"]
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\nconfigs:") and PARQUET_FILE in card and "| games | accepted | 1 |" in card


def test_folder_pack_has_index_card_and_no_python_file(tmp_path: Path, make_source) -> None:
    source = make_source(["PackLayoutOne"])
    folder = export_pack(source, tmp_path / "pack", name="layout", find_parents=False).path
    index = json.loads((folder / INDEX_FILE).read_text(encoding="utf-8"))
    assert index["format"] == "spade-pack" and index["format_version"] == 1
    assert index["environments"][0]["content_hash"] == source.get("spade/PackLayoutOne-v0").content_hash
    assert not list(folder.rglob("*.py")), "a pack holds module sources as text, never importable files"
    assert "## How it was made" in (folder / "README.md").read_text(encoding="utf-8")


def test_export_command_filters_and_reports(tmp_path: Path, make_source) -> None:
    from click.testing import CliRunner

    from spade_core.cli.main import cli

    source = make_source(["PackCliLow", "PackCliHigh"])  # regrets 0.25 and 0.35
    out = tmp_path / "cli-pack.tar.gz"
    result = CliRunner().invoke(cli, ["--store", str(source.path), "export", str(out), "--min-regret", "0.3",
                                      "--domain", "games", "--no-parents", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["environments"] == 1
    (env,) = open_pack(str(out)).environments
    assert env.pack_id == "spade/PackCliHigh-v0" and env.stats.regret == pytest.approx(0.35)
    again = CliRunner().invoke(cli, ["--store", str(source.path), "export", str(out)])
    assert again.exit_code == 1 and "already exists" in again.output
    bad = CliRunner().invoke(cli, ["--store", str(source.path), "export", str(tmp_path / "x"), "--iterations", "2"])
    assert bad.exit_code == 2 and "--iterations needs --run" in bad.output
