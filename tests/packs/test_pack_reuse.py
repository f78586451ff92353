"""Reuse: ``spade eval --suite pack:PACK`` evaluates on a pack as a frozen pool and ``agent.pool_packs`` starts a
self-play pool from one; ``gymnasium.make`` works for every imported environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.evaluation.suite import load_suite, suite_specs
from spade_core.gym_bridge import open_store
from spade_core.packs import PackError, export_pack
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.wiring import start_pool
from spade_core.typed_config import load_config


def test_a_pack_is_an_eval_suite_and_a_selfplay_pool(tmp_path: Path, make_source) -> None:
    source = make_source(["PackReuseA", "PackReuseB"])
    pack = export_pack(source, tmp_path / "pool.tar.gz", name="reuse", find_parents=False).path
    store_path = tmp_path / "eval.sqlite3"
    suite = load_suite(f"pack:{pack}", specs=suite_specs(), store=str(store_path), seeds=2)
    assert suite.name == "pack:reuse" and len(suite.tasks) == 4
    task = suite.tasks[0]
    env = task.make_env()  # gymnasium.make of the imported id, in the sandbox
    try:
        obs, _ = env.reset(seed=task.seed)
        assert isinstance(obs, str) and "heap" in obs.lower()
    finally:
        env.close()

    config = load_config(SelfPlayConfig, None, [f"agent.pool_packs=['{pack}']", f"store={tmp_path / 'run.sqlite3'}"])
    assert config.agent.pool_packs == [str(pack)]
    run_store = open_store(config.store)
    assert start_pool(config, run_store) == ["spade-pack/PackReuseA-v0", "spade-pack/PackReuseB-v0"]
    assert {r.env_id for r in run_store.query(status="accepted") if r.provenance.get("pack") == "reuse"} == {
        "spade-pack/PackReuseA-v0", "spade-pack/PackReuseB-v0"}
    assert start_pool(config, run_store) == ["spade-pack/PackReuseA-v0", "spade-pack/PackReuseB-v0"]  # resumption: duplicates


def test_a_plugin_offers_a_pack_by_name_through_the_hook(tmp_path: Path, make_source) -> None:
    from spade_core.cli.pack_commands import pack_table
    from spade_core.packs import open_pack
    from spade_core.plugins import get_plugins, hookimpl
    from spade_core.plugins.contributions import PackSpec

    source = make_source(["PackByHook"])
    folder = export_pack(source, tmp_path / "pool", name="hooked", find_parents=False).path

    class Offering:
        @hookimpl
        def spade_packs(self) -> list[PackSpec]:
            return [PackSpec("hooked_pool", str(folder), "offering-dist", "0.1"),
                    PackSpec("refused_pool", str(folder), "offering-dist", "0.1", problem="it carries code")]

    registry = get_plugins()
    assert registry.register(Offering(), "offering-plugin")
    try:
        assert [e.pack_id for e in open_pack("hooked_pool").environments] == ["spade/PackByHook-v0"]
        with pytest.raises(PackError, match="refused: it carries code"):
            open_pack("refused_pool")
        with pytest.raises(PackError, match="installed packs: .*hooked_pool"):
            open_pack("no_such_pool")
        table = pack_table(registry)
        assert table is not None and table.row_count >= 2
    finally:
        registry.unregister("offering-plugin")
