"""The self-play config tree is checked whole when it is loaded: an enum-like knob with a wrong value, an unknown
designer domain or trainer backend, an out-of-range value or a key the run derives fails at once (before torch is
imported), naming the key and the allowed values or the knob to set; ``spade selfplay --help-config`` prints every
knob with its type, default and help, the components' own knobs included. Sections are built on their components'
knob classes, so a run's component configs take every value from the file and each default has one home."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.designer.loop import DesignConfig, DesignKnobs
from spade_core.rollout.specs import RolloutConfig
from spade_core.selfplay import wiring
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.wiring import EMBEDDERS
from spade_core.training.regret import RegretConfig
from spade_core.training.settings import SharedTrainSettings
from spade_core.typed_config import ConfigError, derive, derived_keys, knobs, load_config
from spade_trainers.reference.config import ReferenceTrainerConfig
from spade_trainers.reference.config import from_shared as reference_from_shared
from spade_trainers.trl.config import TRLTrainerConfig
from spade_trainers.trl.config import from_shared as trl_from_shared

KNOBS = knobs(SelfPlayConfig)
ENUMS = {k.key: k for k in KNOBS if k.type.startswith("'")}


def test_enum_like_knobs_are_literals() -> None:
    assert {"model.generator", "agent.hint_placement", "regret.statistic", "regret.objective", "train.agent_advantage",
            "train.designer_advantage", "memory.embedder"} <= set(ENUMS)
    embedder = typing.get_type_hints(type(SelfPlayConfig().memory))["embedder"]
    assert set(typing.get_args(embedder)) == set(EMBEDDERS)  # the builder knows every allowed name


@pytest.mark.parametrize("key", sorted(ENUMS))
def test_a_wrong_enum_value_in_a_file_names_the_key_and_the_choices(key: str, tmp_path: Path) -> None:
    section, name = key.split(".")
    path = tmp_path / "run.yaml"
    path.write_text(f"{section}:\n  {name}: not-a-choice\n")
    with pytest.raises(ConfigError) as caught:
        load_config(SelfPlayConfig, path)
    message = str(caught.value)
    assert message.startswith(f"{key}: expected one of ") and "'not-a-choice'" in message
    assert all(choice in message for choice in ENUMS[key].type.split(" | "))


def test_unknown_domains_and_backends_fail_at_load() -> None:
    with pytest.raises(ConfigError, match=r"designer.domains: unknown domain\(s\) \['mth'\]; installed: .*'math'"):
        load_config(SelfPlayConfig, None, ["designer.domains=[math, mth]"])
    # every list of domain names is checked the same way (a typo never waits for an iteration to fail)
    with pytest.raises(ConfigError, match=r"agent.domains: unknown domain\(s\) \['gmaes'\]; installed: .*'games'"):
        load_config(SelfPlayConfig, None, ["agent.domains=[math, gmaes]"])
    assert load_config(SelfPlayConfig, None, ["agent.domains=null"]).agent.domains is None
    with pytest.raises(ConfigError, match=r"train.backend: no trainer backend named 'nope'; installed: .*'reference'"):
        load_config(SelfPlayConfig, None, ["train.backend=nope"])


@pytest.mark.parametrize(("overrides", "said"), [
    (['train.backend_options={"clip_eps_lo": 0.1}'], r"unknown reference-trainer setting\(s\) \['clip_eps_lo'\]"),
    (['train.backend_options={"clip_eps_low": 2}'], r"clip_eps_low must be in \[0, 1\)"),
    (["train.backend=trl", 'train.backend_options={"loss_type": "nope"}'], "loss_type must be one of"),
])
def test_a_backends_own_options_are_checked_at_load(overrides: list[str], said: str) -> None:
    with pytest.raises(ConfigError, match=r"train.backend_options \((reference|trl) backend\): .*" + said):
        load_config(SelfPlayConfig, None, overrides)
    load_config(SelfPlayConfig, None, [overrides[0]] if len(overrides) > 1 else [])  # the backend alone is fine


def test_the_cli_rejects_a_bad_value_before_importing_torch() -> None:
    script = ("import sys\nfrom click.testing import CliRunner\nfrom spade_core.cli.main import cli\n"
              "r = CliRunner().invoke(cli, ['selfplay', '--set', 'regret.objective=regrets'])\n"
              "print(r.exit_code, 'torch' in sys.modules)\nprint(r.output)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    first, *rest = done.stdout.splitlines()
    assert first == "1 False", done.stdout + done.stderr
    said = " ".join(" ".join(rest).split())  # the terminal may wrap the line
    assert "regret.objective: expected one of ['defended', 'regret', 'learnability', 'target', 'uniform'], got 'regrets'" in said


def test_help_config_prints_every_knob_with_type_default_and_help() -> None:
    result = CliRunner().invoke(cli, ["selfplay", "--help-config"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    heads = [line for line in lines if not line.startswith(" ")]
    assert [h.split(":")[0] for h in heads] == [k.key for k in KNOBS]
    undocumented = [k.key for k in KNOBS if not k.help]
    assert not undocumented, f"knobs without a help comment in their dataclass: {undocumented}"
    at = lines.index("model.generator: 'hf' | 'hf_engine' | 'vllm' = \"hf\"")
    assert lines[at + 1].startswith("    who samples")


def test_spade_design_rejects_an_unknown_domain_before_loading_a_model() -> None:
    result = CliRunner().invoke(cli, ["design", "--domain", "nosuch", "--model", "/no/such/model"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "Invalid value for --domain: unknown domain 'nosuch'; loaded domains: code, games, math" in said


def test_help_config_prints_the_components_own_knobs_with_their_help() -> None:
    lines = CliRunner().invoke(cli, ["selfplay", "--help-config"]).output.splitlines()
    helps = {line.split(":")[0]: lines[i + 1].strip() for i, line in enumerate(lines[:-1]) if not line.startswith(" ")}
    # fields written once, in the component classes (RegretCoefficients, RolloutKnobs, DesignKnobs, TrainKnobs)
    assert helps["regret.prior_alpha"].startswith("alpha of the Beta prior")
    assert helps["regret.objective"].startswith('the designer\'s reward: "defended"')
    assert helps["agent.hint_every_turn"].startswith("multi-turn: refresh the hint")
    assert helps["designer.top_p"] == "the designer's nucleus-sampling mass"
    assert helps["train.micro_batch_size"].startswith("sequences per forward")
    assert "regret.k" not in helps and "train.seed" not in helps and "designer.domain" not in helps


@pytest.mark.parametrize("key", sorted(derived_keys(SelfPlayConfig)))
def test_a_derived_key_fails_at_load_naming_the_knob_to_set(key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(SelfPlayConfig, None, [f"{key}=1"])
    source = derived_keys(SelfPlayConfig)[key]
    assert str(caught.value) == f"{key}: derived from {source}, not set on its own; set {source} instead"


@pytest.mark.parametrize(("override", "said"), [
    ("regret.learnability_weight=1.5", "regret.learnability_weight: must be in [0, 1], got 1.5"),
    ("regret.prior_beta=0", "regret.prior_beta: must be > 0 (a Beta prior), got 0.0"),
    ("agent.max_context_tokens=1", "agent.max_context_tokens: must be >= 2, got 1"),
    ("designer.top_p=1.5", "designer.top_p: must be in (0, 1], got 1.5"),
    ("train.micro_batch_size=0", "train.micro_batch_size: must be >= 1, got 0"),
])
def test_a_components_range_check_fails_at_load_naming_the_key(override: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(SelfPlayConfig, None, [override])
    assert str(caught.value) == said


def _section_values(section: Any) -> dict[str, Any]:
    return {f.name: getattr(section, f.name) for f in dataclasses.fields(section)}


def test_a_run_hands_every_section_value_on_to_its_component(tmp_path: Path) -> None:
    """Every user knob of a component reaches it: set each to a non-default value and read it back from the
    component config the run builds (nothing is copied field by field, so nothing can be left behind)."""
    config = load_config(SelfPlayConfig, None, [
        "seed=7", "model.max_batch_size=5", "model.kv_cache_mb=64", "model.decode_threads=2",
        "agent.seeds_per_env=4", "agent.max_new_tokens=9", "agent.temperature=0.5",
        "agent.max_context_tokens=300", "agent.hint_placement=system", "agent.hint_every_turn=false",
        "regret.objective=target", "regret.target_success=0.3", "regret.z=2.0", "train.micro_batch_size=3",
        "train.kl_coef=0.1", "train.max_completion_tokens=64", "designer.top_p=0.5", "designer.neighbours=1"])
    regret = wiring.regret_config(config)
    assert regret.k == 4 and regret.objective == "target" and regret.target_success == 0.3 and regret.z == 2.0
    rollout = wiring.rollout_config(config)
    assert (rollout.sampling.max_new_tokens, rollout.sampling.temperature, rollout.seed) == (9, 0.5, 7)
    assert (rollout.max_context_tokens, rollout.hint_placement, rollout.hint_every_turn) == (300, "system", False)
    shared = derive(SharedTrainSettings, config.train, seed=config.seed,
                    generator_max_batch_size=config.model.max_batch_size,
                    generator_kv_cache_mb=config.model.kv_cache_mb,
                    generator_decode_threads=config.model.decode_threads, run_dir=str(tmp_path))
    assert (shared.micro_batch_size, shared.kl_coef, shared.max_completion_tokens) == (3, 0.1, 64)
    assert (shared.generator_kv_cache_mb, shared.generator_decode_threads) == (64, 2)
    design = derive(DesignConfig, config.designer, domain="math", seed=1)
    assert design.top_p == 0.5 and design.neighbours == 1
    for built, section in [(regret, config.regret), (rollout, config.agent), (shared, config.train),
                           (design, config.designer)]:
        common = {name: value for name, value in _section_values(section).items() if hasattr(built, name)}
        assert common == {name: getattr(built, name) for name in common}


def test_each_component_field_is_a_section_knob_or_a_derived_key() -> None:
    """A field a component gains is either a knob of its section (by the shared base class) or derived, listed in
    DERIVED_KEYS: the default is never written a second time in the section."""
    derived = derived_keys(SelfPlayConfig)
    for section, component in [("regret", RegretConfig), ("agent", RolloutConfig), ("train", SharedTrainSettings),
                               ("designer", DesignConfig)]:
        knob_names = {f.name for f in dataclasses.fields(getattr(SelfPlayConfig(), section))}
        for f in dataclasses.fields(component):
            assert f.name in knob_names or f"{section}.{f.name}" in derived, f"{component.__name__}.{f.name}"
    assert issubclass(type(SelfPlayConfig().designer), DesignKnobs)


@pytest.mark.parametrize(("config_class", "from_shared", "own"), [
    (ReferenceTrainerConfig, reference_from_shared, set()),
    # set by the mapping on purpose: a run's TRL files live in its run directory; update() needs no train() groups
    (TRLTrainerConfig, trl_from_shared, {"output_dir", "num_generations", "steps_per_generation"}),
])
def test_a_backend_on_its_own_defaults_to_what_a_run_gives_it(config_class: Any, from_shared: Any,
                                                                own: set[str]) -> None:
    """Micro-batch, completion length, KL, learning rate, seed, generator batch: one default, SharedTrainSettings's."""
    default = config_class()
    mapped = {k: v for k, v in from_shared(SharedTrainSettings()).items() if k not in own}
    assert {k: getattr(default, k) for k in mapped} == mapped


@given(per_device=st.integers(1, 16), groups=st.integers(2, 16), accumulation=st.integers(1, 8))
def test_trls_default_generation_batch_holds_whole_groups_and_steps(per_device: int, groups: int,
                                                                      accumulation: int) -> None:
    """With one sequence per micro-batch by default, TRL's own rule (steps = gradient_accumulation_steps) would
    split a group of 8; the config's rule gives TRL a generation batch it accepts, for any batch shape."""
    steps = TRLTrainerConfig(per_device_train_batch_size=per_device, num_generations=groups,
                             gradient_accumulation_steps=accumulation).generation_steps()
    assert (per_device * steps) % groups == 0 and steps % accumulation == 0
    assert steps <= groups * accumulation  # the fewest: never more than one group per sequence slot
