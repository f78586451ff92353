"""The self-play loop picks its trainer backend and generator from the config; the shipped configs stay valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml
from safetensors.torch import load_file
from short_selfplay import overrides, short_run_settings

from spade_core.models.errors import BackendUnavailableError
from spade_core.plugins.backends import find_trainer_backend_spec
from spade_core.selfplay import wiring
from spade_core.selfplay.config import GENERATORS, ModelSection, SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.selfplay.wiring import trainer_settings
from spade_core.typed_config import ConfigError, load_config

CONFIGS = sorted(path for path in (Path(__file__).resolve().parents[2] / "configs").glob("*.yaml")
                 if "base" not in yaml.safe_load(path.read_text()))  # ablation plans are tested with their loader


def tiny_run(setup: dict[str, Path], name: str, *extra: str) -> SelfPlayConfig:
    return load_config(SelfPlayConfig, None, [*overrides(setup, name, iterations=1), *extra])


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_load_and_their_trainer_settings_are_valid(path: Path, tmp_path: Path) -> None:
    config = load_config(SelfPlayConfig, path, [f"run_dir={tmp_path}"])
    settings = trainer_settings(config, tmp_path, find_trainer_backend_spec(config.train.backend))
    if config.train.backend == "reference":
        from spade_trainers.reference.config import ReferenceTrainerConfig

        ReferenceTrainerConfig.from_mapping(settings)
    else:
        from spade_trainers.trl.config import TRLTrainerConfig

        TRLTrainerConfig.from_mapping(settings)
    assert config.model.generator in GENERATORS


@pytest.mark.parametrize("backend", ["reference", "trl"])
def test_train_gradient_checkpointing_reaches_the_backend_only_when_set(backend: str, tmp_path: Path) -> None:
    spec = find_trainer_backend_spec(backend)
    unset = trainer_settings(load_config(SelfPlayConfig, None, []), tmp_path, spec)
    assert "gradient_checkpointing" not in unset  # the backend's own default stands
    for value in (True, False):
        config = load_config(SelfPlayConfig, None, [f"train.gradient_checkpointing={str(value).lower()}"])
        assert trainer_settings(config, tmp_path, spec)["gradient_checkpointing"] is value
    override = load_config(SelfPlayConfig, None, ["train.gradient_checkpointing=true",
                                                  "train.backend_options={gradient_checkpointing: false}"])
    assert trainer_settings(override, tmp_path, spec)["gradient_checkpointing"] is False


def test_the_main_job_trains_with_gradient_checkpointing_and_two_malloc_arenas() -> None:
    config = load_config(SelfPlayConfig, Path(__file__).resolve().parents[2] / "configs" / "cpu-demo.yaml", [])
    assert config.train.gradient_checkpointing is True
    assert config.model.malloc_arenas == 2 and config.model.malloc_mmap_threshold_mb == 4


def test_the_heap_settings_reach_glibc_and_zero_leaves_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(wiring, "limit_arenas", lambda n: calls.append(("arenas", n)))
    monkeypatch.setattr(wiring, "fix_mmap_threshold", lambda mb: calls.append(("mmap", mb)))
    wiring.configure_heap(ModelSection(malloc_arenas=3, malloc_mmap_threshold_mb=8))
    assert calls == [("arenas", 3), ("mmap", 8)]
    calls.clear()
    wiring.configure_heap(ModelSection(malloc_arenas=0, malloc_mmap_threshold_mb=0))
    assert calls == []


def test_the_trl_backend_runs_an_iteration_and_trains_the_policy(setup: dict[str, Path]) -> None:
    pytest.importorskip("trl", reason="the trl extra is not installed (CI installs it)")
    config = tiny_run(setup, "trl", "train.backend=trl")
    SelfPlay(config).run()
    metrics = read_metrics(Path(config.run_dir))
    assert len(metrics) == 1 and not [e for e in metrics[0].errors if e.startswith("update")]
    train = metrics[0].train
    assert train.agent.trajectories > 0 and train.designer.trajectories > 0
    assert sum(update.metrics["optimizer_steps"] for update in (train.agent, train.designer)) >= 1
    checkpoint = next((Path(config.run_dir) / "checkpoints").glob("iter-*"))
    state = json.loads((checkpoint / "trainer_state.json").read_text())
    assert state["backend"] == "trl"
    initial = load_file(str(setup["model"] / "model.safetensors"))
    trained = load_file(str(next(checkpoint.rglob("model.safetensors"))))
    assert any(not torch.equal(initial[k], trained[k]) for k in initial if k in trained)


def test_a_vllm_generator_without_vllm_says_how_to_get_it(setup: dict[str, Path]) -> None:
    pytest.importorskip("torch")
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here; the guard is for machines without it")
    with pytest.raises(BackendUnavailableError, match=r"spade-rl\[gpu\]"):
        SelfPlay(tiny_run(setup, "vllm", "model.generator=vllm")).run()


def test_unknown_generator_and_backend_are_config_errors(setup: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="model.generator"):  # when the config is loaded, before the run starts
        tiny_run(setup, "bad-gen", "model.generator=tgi")
    with pytest.raises(ConfigError, match="train.backend: .*installed"):
        tiny_run(setup, "bad-backend", "train.backend=jax")
    with pytest.raises(ConfigError, match=r"ray.generator_actors=2 samples on Ray actors: enable Ray"):
        SelfPlay(tiny_run(setup, "actors-without-ray", "ray.generator_actors=2")).run()


@pytest.mark.parametrize("sharding", ["replicate", pytest.param("fsdp", marks=pytest.mark.slow),
                                      pytest.param("trl", marks=pytest.mark.slow)])
def test_two_processes_train_data_parallel_and_resume(setup: dict[str, Path], sharding: str) -> None:
    """torchrun with 2 ranks (gloo): rank 0 runs the loop, both ranks sample and train; a resumed run continues.

    ``fsdp`` shards the policy (FSDP2, with a KL term and gradient checkpointing) and samples with a separate engine
    on each rank, pushed after every update;
    ``trl`` trains replicas with the TRL backend."""
    from launch_ranks import launch_ranks

    run_dir = setup["root"] / f"dp-run-{sharding}"
    sets = short_run_settings(setup)
    if sharding == "fsdp":
        sets += ["model.generator=hf_engine", "train.kl_coef=0.01",
                 'train.backend_options={"sharding": "fsdp", "gradient_checkpointing": true}']
    if sharding == "trl":
        pytest.importorskip("trl", reason="the trl extra is not installed (CI installs it)")
        sets += ["train.backend=trl"]
    cli = ["spade_core.cli.main", "--store", str(setup["root"] / f"dp-{sharding}.sqlite3"), "selfplay"]
    first = launch_ranks(2, *cli, "--run-dir", str(run_dir), "--iterations", "1",
                         *[a for s in sets for a in ("--set", s)], module=True)
    assert first.returncode == 0, first.stderr[-3000:]
    again = launch_ranks(2, *cli, "--resume", str(run_dir), "--iterations", "2", module=True)
    assert again.returncode == 0, again.stderr[-3000:]
    metrics = read_metrics(run_dir)
    assert [m.iteration for m in metrics] == [0, 1]
    for m in metrics:
        role_metrics = [update.metrics for update in (m.train.agent, m.train.designer) if update is not None]
        assert role_metrics and {r["data_parallel_ranks"] for r in role_metrics} == {2.0} and not m.errors
        if sharding == "fsdp":  # every update was pushed to the engines and verified
            assert all(r["sync_ok"] == 1.0 for r in role_metrics)
    if sharding == "fsdp":
        checkpoint = sorted((run_dir / "checkpoints").glob("iter-*"))[-1]
        assert json.loads((checkpoint / "trainer_state.json").read_text())["sharding"] == "fsdp"
