"""Registry trust: only plain-JSON manifests, no designer environment under a bundled name, and an unversioned id
(``gymnasium.make("spade/Mastermind")``) that never resolves to designer code.

Through the public paths: ``spade validate`` (with ``--register``), the store API and ``gymnasium.make``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import gymnasium as gym
import pytest
from click.testing import CliRunner
from gymnasium.envs.registration import registry as gym_registry

from spade_core.cli.main import cli
from spade_core.errors import ReservedNameError, StoreError
from spade_core.gym_bridge import open_store, register_store, sync_seed_environments
from spade_registry.records import Status, Trust

SEEDS = Path(__file__).resolve().parents[1] / "plugins" / "domains" / "games" / "seeds"
MASTERMIND = (SEEDS / "mastermind.py").read_text(encoding="utf-8")


def renamed(name: str, *, extra: str = "") -> str:
    """The bundled Mastermind seed under another ENV_SPEC name (and extra manifest text), a comment changed."""
    source = MASTERMIND.replace('"name": "Mastermind"', f'"name": "{name}"{extra}', 1)
    assert f'"name": "{name}"{extra}' in source
    return source + f"\n# variant {name}\n"


def validate(store: Path, *paths: Path, register: bool = False) -> tuple[int, list[dict]]:
    args = ["--store", str(store), "validate", *map(str, paths), "--json"] + (["--register"] if register else [])
    result = CliRunner().invoke(cli, args)
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, rows


@pytest.mark.parametrize("name", ["Mastermind", "mastermind", "MASTERMIND", "Master_Mind", "master.mind",
                                  "TicTacToe", "tic_tac_toe", "Arithmetic_Chain"])
def test_a_designer_environment_named_like_a_bundled_one_is_refused(tmp_path: Path, store_path: Path,
                                                                      name: str) -> None:
    candidate = tmp_path / "candidate.py"  # not the seed's own code (that is validated as the seed itself)
    candidate.write_text(renamed(name).replace('"description": "', '"description": "A variant. ', 1), encoding="utf-8")
    code, rows = validate(store_path, candidate, register=True)
    assert code == 1
    (row,) = rows
    assert row["verdict"] == "rejected" and row["stage"] == "exact_duplicate"
    assert "belongs to the bundled environment" in row["message"] and "ENV_SPEC['name']" in row["message"]
    store = open_store(store_path)
    assert not [r for r in store.query(trust=Trust.DESIGNER)], "nothing of the candidate is stored"


@pytest.mark.parametrize(("extra", "needle"), [
    (', "extra": {"x": 1e999}', "is inf"),
    (', "extra": {"x": [1, -1e999]}', "is -inf"),
    (', "extra": {1: "a"}', "non-string key 1"),
    (', "extra": {"a": {(1, 2): 3}}', "non-string key (1, 2)"),
    (', "extra": {"s": {1, 2}}', "is a set"),
    (', "extra": {"b": b"raw"}', "is a bytes"),
])
def test_a_manifest_that_is_not_plain_json_is_refused_with_the_place_named(tmp_path: Path, store_path: Path,
                                                                           extra: str, needle: str) -> None:
    candidate = tmp_path / "candidate.py"
    candidate.write_text(renamed("OddManifest", extra=extra), encoding="utf-8")
    code, rows = validate(store_path, candidate, register=True)
    assert code == 1
    (row,) = rows
    assert row["stage"] == "structure", row
    assert "plain JSON" in row["message"] and needle in row["message"], row["message"]
    stored = open_store(store_path).query(trust=Trust.DESIGNER)
    assert stored and all(r.status is Status.FAILED and r.env_id is None for r in stored)  # a failure on record


def test_the_store_refuses_non_json_data_and_accepting_without_a_valid_manifest(store_path: Path) -> None:
    store = open_store(store_path)
    with pytest.raises(StoreError, match="is inf"):
        store.add(code="x = 1", manifest={"name": "A", "extra": {"x": float("inf")}})
    with pytest.raises(StoreError, match="non-string key"):
        store.add(code="x = 2", manifest={"name": "A", "extra": {1: "a"}})
    with pytest.raises(StoreError, match="is nan"):
        store.add(code="x = 3", manifest={}, report={"score": float("nan")})
    with pytest.raises(StoreError, match="manifest is invalid"):
        store.add(code="x = 4", manifest={}, status=Status.ACCEPTED)
    record, _ = store.add(code="x = 5", manifest={}, status=Status.FAILED, failed_stage="structure")
    with pytest.raises(StoreError, match="manifest is invalid"):
        store.set_status(record.rid, Status.ACCEPTED)
    assert store.get(record.rid).env_id is None


def test_the_store_refuses_to_accept_a_designer_record_under_a_bundled_name(store_path: Path) -> None:
    store = open_store(store_path)
    sync_seed_environments(store)
    manifest = json.loads(json.dumps(store.get("spade/Mastermind-v0").manifest))
    for i, name in enumerate(("Mastermind", "mASTERmIND", "Master_Mind")):
        with pytest.raises(ReservedNameError, match="belongs to the bundled environment spade/Mastermind"):
            store.add(code=f"VARIANT = {i}", manifest={**manifest, "name": name}, status=Status.ACCEPTED)
    assert not store.query(trust=Trust.DESIGNER), "a refused record leaves nothing behind"
    assert store.reserved_name_problem("MasterMindVariant") is None
    record, _ = store.add(code=renamed("MasterMindVariant"), manifest={**manifest, "name": "MasterMindVariant"},
                          status=Status.ACCEPTED)
    assert record.env_id == "spade/MasterMindVariant-v0"


def test_an_unversioned_id_never_resolves_to_designer_code(store_path: Path) -> None:
    """A store written before the name rule: a designer Mastermind accepted first holds Mastermind-v0, the bundled
    seed synced later gets Mastermind-v1. The designer record is never registered, and the unversioned id and
    every registered Mastermind version are bundled code."""
    store = open_store(store_path)
    designer_manifest = {**json.loads(MASTERMIND_MANIFEST), "name": "Mastermind"}
    designer, _ = store.add(code=renamed("Mastermind") + "\nVARIANT = 1\n", manifest=designer_manifest,
                            status=Status.ACCEPTED)
    assert designer.env_id == "spade/Mastermind-v0" and designer.trust is Trust.DESIGNER
    sync_seed_environments(store)
    assert store.shadowing_ids() == {designer.env_id}
    before = set(gym_registry)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            added = register_store(store_path)
        assert designer.env_id not in added
        if designer.env_id not in before:  # (the session's default store may hold a bundled Mastermind-v0 already)
            assert any("not registered" in str(w.message) and designer.env_id in str(w.message) for w in caught)
        env = gym.make("spade/Mastermind")
        try:
            kwargs = env.spec.kwargs
            record = open_store(kwargs.get("store")).get(kwargs["env_id"])
            assert record.trust is Trust.BUNDLED
        finally:
            env.close()
        for env_id, spec in gym_registry.items():
            if spec.name == "Mastermind" and spec.namespace == "spade":
                owner = open_store(spec.kwargs.get("store")).get(spec.kwargs["env_id"])
                assert owner.trust is Trust.BUNDLED, env_id
    finally:
        for env_id in set(gym_registry) - before:
            del gym_registry[env_id]


MASTERMIND_MANIFEST = json.dumps({
    "name": "Mastermind", "domain": "games", "description": "Guess the hidden code.", "reward_range": [0.0, 1.0],
    "max_turns": 10,
})


def test_the_bundled_name_check_reads_an_index_not_every_record(store_path: Path) -> None:
    """Every designer add checks its name against the bundled names: that lookup must not scan the whole store
    (a full scan made filling a 100k-record store quadratic)."""
    from spade_registry.store import RegistryStore

    with RegistryStore(store_path) as store:
        plan = store._conn.execute("EXPLAIN QUERY PLAN SELECT DISTINCT name FROM records WHERE trust = ?",
                                   (Trust.BUNDLED.value,)).fetchall()
    detail = " ".join(str(row[-1]) for row in plan)
    assert "INDEX records_by_trust" in detail and "SCAN records" not in detail, detail
