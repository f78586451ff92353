"""Registry store: identity, versioning, statuses, queries, bad files, concurrency and crash safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.errors import ForeignStoreError, InvalidIdError, RecordNotFoundError, StoreCorruptError
from spade_registry import RegistryStore, Status, content_hash, format_env_id, parse_env_id
from spade_registry.records import Trust


def manifest(name: str = "Thing", domain: str = "math", **extra) -> dict:
    return {"name": name, "domain": domain, "description": "d", "reward_range": [0, 1], "max_turns": 3, **extra}


def code(n: int) -> str:
    return f"ENV_SPEC = {{}}\n\nclass E:\n    def reset(self, rng, options):\n        return '{n}', {{}}\n"


def test_add_is_content_addressed(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        first, created = store.add(code=code(1), manifest=manifest())
        assert created and first.env_id is None and first.status is Status.QUARANTINED
        reformatted = code(1).replace("\n\n", "\n\n\n") + "# a comment\n"
        again, created_again = store.add(code=reformatted, manifest=manifest())
        assert not created_again and again.rid == first.rid


def test_docstrings_do_not_change_identity() -> None:
    a = 'def f():\n    """Doc."""\n    return 1\n'
    b = "def f():\n    return 1\n"
    assert content_hash(a) == content_hash(b)
    assert content_hash("def f(:") .startswith("raw:")
    assert content_hash("x = 1") != content_hash("x = 2")


def test_accepting_assigns_next_version(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        a, _ = store.add(code=code(1), manifest=manifest(), status=Status.ACCEPTED)
        failed, _ = store.add(code=code(2), manifest=manifest(), status=Status.FAILED, failed_stage="contract")
        b, _ = store.add(code=code(3), manifest=manifest(), status=Status.ACCEPTED)
        assert (a.env_id, b.env_id) == ("spade/Thing-v0", "spade/Thing-v1")
        assert failed.env_id is None and failed.status_label == "failed:contract"
        promoted = store.set_status(failed.rid, Status.ACCEPTED)
        assert promoted.env_id == "spade/Thing-v2"
        assert store.get("spade/Thing-v1").rid == b.rid
        assert store.get("Thing-v1").rid == b.rid
        assert store.get(f"#{a.rid}").env_id == "spade/Thing-v0"
        assert store.get(a.content_hash[:16]).rid == a.rid
        assert sorted(e for e, _ in store.accepted_index()) == ["spade/Thing-v0", "spade/Thing-v1", "spade/Thing-v2"]


def test_query_filters_and_stats(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        store.add(code=code(1), manifest=manifest("A", "math", tags=["x"]), status=Status.ACCEPTED)
        store.add(code=code(2), manifest=manifest("B", "games", tags=["y"]), status=Status.ACCEPTED)
        store.add(code=code(3), manifest=manifest("C", "games"), status=Status.RETIRED)
        assert [r.name for r in store.query(domain="games")] == ["B", "C"]
        assert [r.name for r in store.query(status=Status.ACCEPTED, tag="y")] == ["B"]
        assert store.count(status="accepted") == 2
        stats = store.update_stats("spade/A-v0", {"episodes": 4, "successes": 1})
        assert store.update_stats("spade/A-v0", {"successes": 2}) == {**stats, "successes": 2}
        assert store.get("spade/A-v0").stats == {"episodes": 4, "successes": 2}


def test_unknown_id_and_bad_id(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        with pytest.raises(RecordNotFoundError, match="spade/Nope-v0"):
            store.get("spade/Nope-v0")
        with pytest.raises(InvalidIdError, match="not a SPADE environment id"):
            store.get("gym/CartPole")


def test_corrupt_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreCorruptError, match=str(path)):
        RegistryStore(path)


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(ForeignStoreError, match="did not create"):
        RegistryStore(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("customers",)]


@given(name=st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,20}", fullmatch=True), version=st.integers(0, 10**6))
def test_id_format_round_trips(name: str, version: int) -> None:
    env_id = format_env_id(name, version)
    assert parse_env_id(env_id) == (name, version)
    assert parse_env_id(f"spade_core:{env_id}") == (name, version)


_WRITER = """
import sys
from spade_registry import RegistryStore, Status
store = RegistryStore(sys.argv[1])
tag = sys.argv[2]
for i in range(int(sys.argv[3])):
    store.add(code="x = " + repr(tag) + "\\ny = " + str(i) + "\\n",
              manifest={"name": "W" + tag, "domain": "math", "description": "d", "reward_range": [0, 1],
                        "max_turns": 2}, status=Status.ACCEPTED)
    print(i, flush=True)
"""


def test_two_processes_adding_at_once_lose_nothing(store_path: Path) -> None:
    RegistryStore(store_path).close()
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(store_path), tag, "60"], stdout=subprocess.DEVNULL)
        for tag in ("a", "b")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with RegistryStore(store_path) as store:
        for tag in ("a", "b"):
            records = store.query(domain="math", status=Status.ACCEPTED)
            versions = sorted(r.version for r in records if r.name == "W" + tag)
            assert versions == list(range(60))


def test_sigkill_mid_batch_leaves_only_whole_records(store_path: Path) -> None:
    RegistryStore(store_path).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(store_path), "k", "100000"], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    confirmed = -1
    deadline = time.monotonic() + 60
    while confirmed < 30 and time.monotonic() < deadline:
        confirmed = int(proc.stdout.readline().split()[0])
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert confirmed >= 30
    with RegistryStore(store_path) as store:
        records = store.query(status=Status.ACCEPTED)
        # every add that reported success is there, whole, and nothing half-written exists
        assert len(records) >= confirmed + 1
        assert sorted(r.version for r in records) == list(range(len(records)))
        for record in records:
            assert record.code.startswith("x = 'k'") and record.manifest["name"] == "Wk"
            assert record.trust is Trust.DESIGNER
        with sqlite3.connect(store_path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            orphans = conn.execute("SELECT COUNT(*) FROM records WHERE rid NOT IN (SELECT rid FROM payloads)")
            assert orphans.fetchone() == (0,)
