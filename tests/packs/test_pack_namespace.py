"""Imported environments live in the ``spade-pack`` namespace: a pack imported before a plugin is installed never
takes the id of the plugin's seed, both stay registered, an imported environment plays and exports again, and a
store written before the namespace existed has its imported records moved there when opened."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pack_helpers import assert_each_resets_to_text, source_store

from spade_core.gym_bridge import open_store, register_store
from spade_core.packs import export_pack, import_pack, open_pack
from spade_core.plugins import get_plugins, hookimpl
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.validation.seed_gate import gate_plugin_seeds
from spade_registry.errors import InvalidIdError
from spade_registry.ids import ENV_NAMESPACE, NAMESPACES, PACK_NAMESPACE, EnvId, format_env_id, parse_env_id, parse_id
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

SECRET = (Path(__file__).resolve().parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text(
    encoding="utf-8")
NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,79}", fullmatch=True)


@given(name=NAMES, version=st.integers(0, 999_999_999), namespace=st.sampled_from(NAMESPACES))
def test_ids_round_trip_in_every_namespace(name: str, version: int, namespace: str) -> None:
    env_id = format_env_id(name, version, namespace)
    assert env_id == f"{namespace}/{name}-v{version}"
    assert parse_id(env_id) == parse_id(f"spade_core:{env_id}") == EnvId(namespace, name, version)
    assert str(parse_id(env_id)) == env_id
    if namespace == ENV_NAMESPACE:
        assert parse_env_id(env_id) == (name, version) == parse_env_id(f"{name}-v{version}")
    else:
        with pytest.raises(InvalidIdError, match="not in the 'spade' namespace"):
            parse_env_id(env_id)


@given(name=NAMES, namespace=st.text(min_size=1, max_size=20).filter(lambda n: n not in NAMESPACES))
def test_no_other_namespace_is_an_id(name: str, namespace: str) -> None:
    with pytest.raises(InvalidIdError):
        format_env_id(name, 0, namespace)
    with pytest.raises(InvalidIdError):
        parse_id(f"{namespace}/{name}-v0")


class SeedPlugin:
    @hookimpl
    def spade_seed_environments(self) -> list[SeedEnvironment]:
        return [SeedEnvironment("foo_later_seed")]


@pytest.fixture
def foo_later_plugin(tmp_path: Path) -> Iterator[None]:
    """A third-party plugin (registered through pluggy in-process) whose one seed is named ``FooLater``."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "foo_later_seed.py").write_text(SECRET.replace('"SecretNumber"', '"FooLater"'), encoding="utf-8")
    sys.path.insert(0, str(folder))
    plugin = SeedPlugin()
    yield plugin
    get_plugins().unregister("foo-later")  # by the name the test registers it under
    sys.path.remove(str(folder))
    sys.modules.pop("foo_later_seed", None)


def test_a_pack_imported_first_never_takes_a_later_plugin_seeds_id(tmp_path: Path, foo_later_plugin) -> None:
    source = source_store(tmp_path / "source.sqlite3", ["FooLater"])
    pack = export_pack(source, tmp_path / "pack", name="later", find_parents=False).path
    target_path = tmp_path / "target.sqlite3"
    target = open_store(target_path)
    (outcome,) = import_pack(open_pack(str(pack)), target).outcomes
    assert (outcome.verdict, outcome.env_id) == ("accepted", "spade-pack/FooLater-v0"), outcome.to_dict()

    assert get_plugins().register(foo_later_plugin, "foo-later")
    result = gate_plugin_seeds(target)
    assert "spade/FooLater-v0" in result.added, result
    seed, imported = target.get("spade/FooLater-v0"), target.get("spade-pack/FooLater-v0")
    assert seed.trust is Trust.BUNDLED and seed.namespace == ENV_NAMESPACE
    assert imported.trust is Trust.DESIGNER and imported.namespace == PACK_NAMESPACE
    assert imported.provenance["source"] == "pack" and seed.content_hash != imported.content_hash

    register_store(target_path, sync_seeds=False)
    assert_each_resets_to_text(("spade/FooLater-v0", "spade-pack/FooLater-v0"))

    # the imported environment exports again under a pack id of the plain form
    again = export_pack(target, tmp_path / "again", name="again", find_parents=False)
    assert [(e.pack_id, e.content_hash) for e in again.environments] == [("spade/FooLater-v0",
                                                                          imported.content_hash)]


def _as_v1(path: Path) -> None:
    """Rewrite a store as a v1 store wrote it: no namespace column, imported records under ``spade/``."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    columns = ("rid, name, version, env_id, content_hash, domain, status, failed_stage, trust, max_turns, players, "
               "tags, created_at, updated_at")
    conn.execute("CREATE TABLE old (rid INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, version INTEGER, "
                 "env_id TEXT UNIQUE, content_hash TEXT NOT NULL UNIQUE, domain TEXT NOT NULL, status TEXT NOT NULL, "
                 "failed_stage TEXT, trust TEXT NOT NULL, max_turns INTEGER NOT NULL, players INTEGER NOT NULL, "
                 "tags TEXT NOT NULL DEFAULT '[]', created_at REAL NOT NULL, updated_at REAL NOT NULL, "
                 "UNIQUE (name, version))")
    conn.execute(f"INSERT INTO old ({columns}) SELECT {columns} FROM records")
    conn.execute("DROP TABLE records")
    conn.execute("ALTER TABLE old RENAME TO records")
    conn.execute("UPDATE records SET env_id = 'spade/' || name || '-v' || version WHERE env_id IS NOT NULL")
    conn.execute("UPDATE spade_meta SET value = '1' WHERE key = 'schema_version'")
    conn.close()


def test_a_v1_store_moves_its_imported_records_to_the_pack_namespace_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "old.sqlite3"
    with RegistryStore(path) as store:
        manifest = {"name": "Old", "domain": "games", "description": "d", "reward_range": [0, 1], "max_turns": 3}
        store.add(code="X = 1\n", manifest=manifest, status=Status.ACCEPTED, provenance={"source": "designer"})
        store.add(code="X = 2\n", manifest={**manifest, "name": "Imported"}, status=Status.ACCEPTED,
                  provenance={"source": "pack", "pack": "p"}, namespace=PACK_NAMESPACE)
    _as_v1(path)
    with caplog.at_level("WARNING", logger="spade_registry.store"), RegistryStore(path) as store:
        assert store.get("spade-pack/Imported-v0").name == "Imported"
        assert store.get("spade/Old-v0").namespace == ENV_NAMESPACE
        assert sorted(env_id for env_id, _ in store.accepted_index()) == ["spade-pack/Imported-v0", "spade/Old-v0"]
    moved = [r.getMessage() for r in caplog.records if "is now" in r.getMessage()]
    assert len(moved) == 1 and "spade/Imported-v0 is now spade-pack/Imported-v0" in moved[0]
    caplog.clear()
    with caplog.at_level("WARNING", logger="spade_registry.store"), RegistryStore(path) as store:
        assert store.get("spade-pack/Imported-v0").namespace == PACK_NAMESPACE
    assert not [r for r in caplog.records if "is now" in r.getMessage()]  # reported once
