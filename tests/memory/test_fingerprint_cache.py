"""Bundled seeds are fingerprinted once per installed source, not once per store; a damaged cache file is a miss,
never a wrong fingerprint; designer code never goes through the cache."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.memory import behaviour, fingerprint_cache
from spade_core.memory.behaviour import BehaviourIndex, record_fingerprint
from spade_core.memory.fingerprint import DIM, FINGERPRINT_MODEL
from spade_core.validation.static_checks import env_spec_assignments
from spade_registry.records import Status, Trust

GOOD = (Path(__file__).parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "fingerprints"
    monkeypatch.setenv(fingerprint_cache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def plays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources that were actually played (not read from the cache)."""
    played: list[str] = []
    real = behaviour._play_fingerprint

    def counting(record):
        played.append(record.env_id or record.code[:20])
        return real(record)

    monkeypatch.setattr(behaviour, "_play_fingerprint", counting)
    return played


def _seeded(path: Path):
    store = open_store(path)
    sync_seed_environments(store)
    assert store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED), "the store holds the bundled seeds"
    return store


def _seed(store_dir: Path):
    store = _seeded(store_dir / "registry.sqlite3")
    return store, store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED)[0]


def test_a_second_store_reads_every_seed_fingerprint_from_the_cache(tmp_path: Path, cache: Path,
                                                                     plays: list[str]) -> None:
    first = _seeded(tmp_path / "a.sqlite3")
    computed = BehaviourIndex(first).refresh()
    seeds = len(first.query(trust=Trust.BUNDLED, status=Status.ACCEPTED))
    assert computed == seeds and len(plays) == seeds
    assert len(list(cache.glob("*.npy"))) == seeds
    second = _seeded(tmp_path / "b.sqlite3")
    assert BehaviourIndex(second).refresh() == seeds  # stored in the new store...
    assert len(plays) == seeds  # ...without playing any seed again
    a = dict((row[1], row[4]) for row in first.get_embeddings(FINGERPRINT_MODEL))
    b = dict((row[1], row[4]) for row in second.get_embeddings(FINGERPRINT_MODEL))
    by_ref_a = {first.get(rid).content_hash: v for rid, v in a.items()}
    by_ref_b = {second.get(rid).content_hash: v for rid, v in b.items()}
    assert by_ref_a == by_ref_b


@pytest.mark.parametrize("damage", [
    lambda p: p.write_bytes(b""),
    lambda p: p.write_bytes(b"\x93NUMPY garbage"),
    lambda p: np.save(p, np.ones(DIM - 1, dtype=np.float32)),
    lambda p: np.save(p, np.full(DIM, np.nan, dtype=np.float32)),
    lambda p: np.save(p, np.ones(DIM, dtype=np.float64)),
    lambda p: np.save(p, np.full(DIM, 5.0, dtype=np.float32)),  # parts not unit length: a forged vector
    lambda p: np.save(p, np.array(["x"] * DIM)),
], ids=["empty", "garbage", "short", "nan", "float64", "not-unit", "strings"])
def test_a_damaged_cache_file_is_a_miss_and_is_rewritten(tmp_path: Path, cache: Path, plays: list[str],
                                                         damage) -> None:
    _, record = _seed(tmp_path)
    truth = record_fingerprint(record).vector()
    (path,) = cache.glob("*.npy")
    damage(path)
    again = record_fingerprint(record).vector()
    assert np.array_equal(again, truth)
    assert len(plays) == 2, "the damaged file was played again"
    assert np.array_equal(np.load(path), truth), "the file was rewritten"


def test_designer_code_is_never_cached(tmp_path: Path, cache: Path) -> None:
    store = open_store(tmp_path / "registry.sqlite3")
    manifest = ast.literal_eval(env_spec_assignments(ast.parse(GOOD))[0].value)
    record, _ = store.add(code=GOOD, manifest=manifest, status=Status.ACCEPTED, trust=Trust.DESIGNER)
    record_fingerprint(record)
    assert not cache.exists() or not list(cache.glob("*.npy"))


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv(fingerprint_cache.CACHE_ENV, str(blocker / "fingerprints"))
    _, record = _seed(tmp_path)
    assert record_fingerprint(record).vector().shape == (DIM,)
    assert fingerprint_cache.cached_fingerprint(record.code) is None
