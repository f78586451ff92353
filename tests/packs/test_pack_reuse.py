"""Reuse: ``spade eval --suite pack:PACK`` evaluates on a pack as a frozen pool and ``agent.pool_packs`` starts a
self-play pool from one; ``gymnasium.make`` works for every imported environment."""

from __future__ import annotations

from pathlib import Path

from spade_core.evaluation.suite import load_suite, suite_specs
from spade_core.gym_bridge import open_store
from spade_core.packs import export_pack
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
    assert start_pool(config, run_store) == ["spade/PackReuseA-v0", "spade/PackReuseB-v0"]
    assert {r.env_id for r in run_store.query(status="accepted") if r.provenance.get("pack") == "reuse"} == {
        "spade/PackReuseA-v0", "spade/PackReuseB-v0"}
    assert start_pool(config, run_store) == ["spade/PackReuseA-v0", "spade/PackReuseB-v0"]  # resumption: duplicates
