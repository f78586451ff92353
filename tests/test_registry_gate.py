"""The store's one gate: every value is checked before it is written, every row when it is read back, and one bad
record (written by this store's API or inserted with raw SQL the way an older store wrote rows) is refused alone.

The registry layer alone: no plugins, no sandbox, no Gymnasium (registration has its own test below).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.selfplay.pool_health import HEALTH_KEY, PoolHealth
from spade_registry import RegistryStore, Status
from spade_registry.errors import BadRecordError, StoreError
from spade_registry.gate import json_problem
from spade_registry.ids import MAX_VERSION, format_env_id
from spade_registry.manifest import NAME_PATTERN
from spade_registry.records import Trust

HUGE = 7 * 10**4999
"""A 5,000-digit integer (``repr`` of it raises ``ValueError`` in CPython 3.11+)."""


def manifest(name: str = "Thing", **extra) -> dict:
    return {"name": name, "domain": "math", "description": "d", "reward_range": [0, 1], "max_turns": 3, **extra}


def code(n: int) -> str:
    return f"ENV_SPEC = {{}}\n\nclass E:\n    def reset(self, rng, options):\n        return '{n}', {{}}\n"


def raw_row(store: RegistryStore, *, name: object = "Old", version: object = 0, env_id: object = "spade/Old-v0",
            status: object = "accepted", max_turns: object = 3, stats: object = None, manifest_text: object = None,
            n: int = 900) -> int:
    """A record inserted with raw SQL, the way an older store wrote rows (no gate on any value)."""
    conn = sqlite3.connect(store.path, isolation_level=None)
    try:
        now = time.time()
        cur = conn.execute(
            "INSERT INTO records (name, version, env_id, content_hash, domain, status, trust, max_turns, players, tags,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, 'math', ?, 'designer', ?, 1, '[]', ?, ?)",
            (name, version, env_id, f"raw:{n:064x}", status, max_turns, now, now))
        rid = int(cur.lastrowid)
        conn.execute("INSERT INTO payloads (rid, manifest, code, module, provenance, report) VALUES (?, ?, ?, NULL, "
                     "'{}', NULL)", (rid, manifest_text if manifest_text is not None else json.dumps(manifest("Old")),
                                     code(n)))
        if stats is not None:
            conn.execute("INSERT INTO stats (rid, data) VALUES (?, ?)", (rid, stats))
    finally:
        conn.close()
    return rid


# -- writes ---------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.text(max_size=90), st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,79}", fullmatch=True),
                      st.sampled_from(["Thing\n", "Thing\r", "Thi\x00ng", "T\u0661", "A" * 81, "Thing\n\n"])))
def test_an_accepted_name_is_stored_only_when_it_fullmatches_the_grammar(tmp_path_factory, name: str) -> None:
    with RegistryStore(tmp_path_factory.mktemp("s") / "r.sqlite3") as store:
        try:
            record, _ = store.add(code=code(1), manifest=manifest(name), status=Status.ACCEPTED)
        except StoreError:
            assert NAME_PATTERN.fullmatch(name) is None
            assert store.count() == 0  # refused before anything was written
            return
        assert NAME_PATTERN.fullmatch(name) is not None
        assert store.get(record.env_id).name == name == record.name


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.sampled_from([1, -1]).map(lambda sign: sign * HUGE)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_stats_are_stored_exactly_or_refused_and_the_record_stays_readable(tmp_path_factory, value: object) -> None:
    with RegistryStore(tmp_path_factory.mktemp("s") / "r.sqlite3") as store:
        record, _ = store.add(code=code(1), manifest=manifest(), status=Status.ACCEPTED)
        try:
            store.update_stats(record.rid, {"x": value})
        except StoreError as exc:
            assert json_problem(value, "x") is not None or "bytes" in str(exc)
            assert store.get(record.rid).stats == {}
            return
        assert json_problem(value, "x") is None
        assert store.get(record.rid).stats == {"x": value}


def test_versions_are_bounded_and_allocation_never_overflows(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        with pytest.raises(StoreError, match="version"):
            store.add(code=code(1), manifest=manifest("Top"), status=Status.ACCEPTED, version=2**63 - 1)
        top, _ = store.add(code=code(2), manifest=manifest("Top"), status=Status.ACCEPTED, version=MAX_VERSION)
        assert top.env_id == format_env_id("Top", MAX_VERSION)
        later, _ = store.add(code=code(3), manifest=manifest("Top"), status=Status.ACCEPTED)
        again, _ = store.add(code=code(4), manifest=manifest("Top"), status=Status.ACCEPTED)
        assert (later.version, again.version) == (0, 1)  # the lowest free versions, never MAX_VERSION + 1


def test_a_failed_candidate_with_out_of_range_index_values_is_stored_with_placeholders(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        record, _ = store.add(code=code(1), status=Status.FAILED,
                              manifest={"name": "Bad\n", "domain": "x\n", "max_turns": 10**12, "players": -1})
        assert (record.name, record.domain, record.max_turns, record.players) == ("Unnamed", "unknown", 0, 1)
        with pytest.raises(StoreError, match="64-bit"):
            store.add(code=code(2), status=Status.FAILED, manifest={"name": "A", "max_turns": HUGE})


# -- rows an older store wrote ----------------------------------------------------------------------------------
bad_rows = st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["Old\n", "", "1x", "Old", None, 5]),
    "version": st.sampled_from([0, -1, 2**63 - 1, MAX_VERSION + 1, "0", 1.5, None]),
    "env_id": st.sampled_from(["spade/Old-v0", "spade/Old\n-v0", "spade/Other-v0", None]),
    "status": st.sampled_from(["accepted", "bogus", ""]),
    "max_turns": st.sampled_from([3, -5, 2**63 - 1, "3", None]),
    "stats": st.sampled_from(['{"n": ' + "9" * 5000 + "}", "[1]", "{", '{"ok": 1}', "nan"]),
    "manifest_text": st.sampled_from(["{", "[]", '{"a": ' + "1" * 5000 + "}", "[" * 100 + "]" * 100]),
})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=bad_rows)
def test_a_row_written_by_an_older_store_is_read_or_refused_alone(tmp_path_factory, row: dict) -> None:
    with RegistryStore(tmp_path_factory.mktemp("s") / "r.sqlite3") as store:
        good, _ = store.add(code=code(1), manifest=manifest("Good"), status=Status.ACCEPTED)
        try:
            rid = raw_row(store, **row)
        except sqlite3.IntegrityError:  # the schema's own NOT NULL / UNIQUE refused it: nothing to read
            return
        found = store.query_checked()
        assert good.rid in [r.rid for r in found.records]
        assert {r.rid for r in found.records} | {r.rid for r in found.refused} == {good.rid, rid}
        assert [r.rid for r in store.query()] == [r.rid for r in found.records]
        assert ("spade/Good-v0", 3) in store.accepted_index()
        assert dict(store.stats_index())[good.rid] == {}
        for refused in found.refused:
            assert refused.reason
            with pytest.raises(BadRecordError):
                store.get(refused.rid)


def test_text_that_is_not_utf8_refuses_only_its_record(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        store.add(code=code(1), manifest=manifest("Good"), status=Status.ACCEPTED)
        rid = raw_row(store, name="Old")
        conn = sqlite3.connect(store.path, isolation_level=None)
        conn.execute("UPDATE payloads SET code = CAST(X'ff00fe' AS TEXT) WHERE rid = ?", (rid,))
        conn.close()
        found = store.query_checked()
        assert [r.name for r in found.records] == ["Good"]
        assert [r.rid for r in found.refused] == [rid] and "UTF-8" in found.refused[0].reason


# -- bulk operations over a poisoned store --------------------------------------------------------------------
def poisoned_store(path: Path) -> RegistryStore:
    """Two good accepted records and three poisoned ones of the kinds older stores could hold."""
    store = RegistryStore(path)
    store.add(code=code(1), manifest=manifest("GoodOne"), status=Status.ACCEPTED)
    store.add(code=code(2), manifest=manifest("GoodTwo"), status=Status.ACCEPTED)
    raw_row(store, name="Newline\n", env_id="spade/Newline\n-v0", n=901)
    raw_row(store, name="Huge", version=2**63 - 1, env_id=f"spade/Huge-v{2**63 - 1}", n=902)
    raw_row(store, name="Digits", env_id="spade/Digits-v0", stats='{"n": ' + "9" * 5000 + "}", n=903)
    return store


def test_spade_list_lists_the_good_records_and_reports_each_bad_one(store_path: Path) -> None:
    poisoned_store(store_path).close()
    result = CliRunner().invoke(cli, ["--store", str(store_path), "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    listed = [row["id"] for row in rows if row["trust"] == "designer"]
    assert listed == ["spade/GoodOne-v0", "spade/GoodTwo-v0"]
    assert result.stderr.count("is left out") == 3


def test_import_spade_core_registers_the_good_records_of_a_poisoned_store(store_path: Path) -> None:
    poisoned_store(store_path).close()
    probe = ("import warnings; warnings.simplefilter('ignore'); import spade_core, gymnasium as gym; "
             "print(sorted(i for i in gym.registry if i.startswith('spade/Good')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "SPADE_STORE": str(store_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['spade/GoodOne-v0', 'spade/GoodTwo-v0']"


def test_pool_health_reviews_the_good_records_when_one_cannot_be_read(store_path: Path) -> None:
    from spade_core.rollout.trajectory import Trajectory

    store = poisoned_store(store_path)
    played = [Trajectory(env_id=env_id, role="agent", group_id="g", episode_id=f"{env_id}{hinted}", token_ids=[],
                         loss_mask=[], logprobs=[], prompt_length=0, hinted=hinted, success=True) for env_id in
              ("spade/Newline\n-v0", "spade/Digits-v0", "spade/GoodOne-v0") for hinted in (True, False)]
    PoolHealth(store).review(played, iteration=1)
    assert store.get("spade/GoodOne-v0").stats[HEALTH_KEY]["hinted"] == 1
    store.close()


def test_declared_bundled_names_are_reserved_before_their_seeds_are_stored(store_path: Path) -> None:
    with RegistryStore(store_path) as store:
        store.declare_bundled_names(["Mastermind"])
        assert "bundled" in (store.reserved_name_problem("master_mind") or "")
        with pytest.raises(StoreError, match="bundled"):
            store.add(code=code(1), manifest=manifest("MasterMind"), status=Status.ACCEPTED, trust=Trust.DESIGNER)
        with pytest.raises(StoreError, match="name grammar"):
            store.declare_bundled_names(["Mastermind\n"])


def test_gating_plugin_seeds_in_a_poisoned_store_reads_past_the_bad_records(store_path: Path, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed gate fingerprints the stored environments first; an unreadable record is left out of that, and
    the third-party seeds are judged (not failed with that record's error)."""
    from spade_core.validation.seed_gate import CACHE_ENV, gate_plugin_seeds

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "verdicts"))  # no kept verdict: the gate runs
    store = poisoned_store(store_path)
    try:
        result = gate_plugin_seeds(store)
    finally:
        store.close()
    assert not [e for e in result.errors if "cannot be read" in e], result.errors
