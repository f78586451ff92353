"""The third-party ``tally`` domain of ``tests/example_plugin`` (installed from its own ``pyproject.toml``) works end to
end with nothing in ``spade_core/`` naming it: ``spade plugins`` lists it, its seeds run through ``gymnasium.make``
and ``check_env``, the designer builds its prompt from its ``DomainSpec``, validation probes its answers as the
answer kind it declares, its own validation stage checks its candidates (``tests/validation/test_stage_hook.py``),
and a self-play iteration runs with it as the only domain."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest
from click.testing import CliRunner
from gymnasium.utils.env_checker import check_env

from spade_core.cli.consoles import console
from spade_core.cli.main import cli
from spade_core.corpora import open_corpus, topic_weights_for
from spade_core.designer.loop import DesignConfig, Designer
from spade_core.gym_bridge import open_store, register_store
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.plugins.domains import answer_kind, get_domain
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.training.regret import ARMS
from spade_core.typed_config import load_config
from spade_core.validation import validate_source
from spade_core.validation.seed_gate import gate_plugin_seeds
from spade_registry.store import RegistryStore

sys.path.insert(0, str(Path(__file__).parent))
from short_selfplay import overrides, write_counting_corpus

DOMAIN = "tally"
SEEDS = ("spade_example_plugin.seeds.coin_tally", "spade_example_plugin.seeds.shelf_count")


def test_installed_from_its_own_project_and_listed_by_spade_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    example = next(p for p in get_plugins().loaded if p.name == "example")
    assert example.distribution == "spade-example-plugin" and example.module == "spade_example_plugin.plugin"
    monkeypatch.setattr(console, "width", 400)  # one line per contribution, nothing cut short
    result = CliRunner().invoke(cli, ["plugins"])
    assert result.exit_code == 0, result.output
    row = result.output[result.output.index("│ example "):]
    for contribution in ("domains: tally", "seed_environments: spade_example_plugin.seeds.coin_tally, "
                         "spade_example_plugin.seeds.shelf_count", "sandbox_modules: spade_example_plugin.verify",
                         "validation_stages: whole_counts"):
        assert contribution in row


def test_its_seeds_run_through_gymnasium(store_path: Path) -> None:
    gate_plugin_seeds(open_store(store_path))  # a third-party plugin's seeds are registered once the gate passed them
    register_store(store_path)
    for name in ("ExampleCoinTally", "ExampleShelfCount"):
        env_id = next(i for i in gym.registry if i.startswith(f"spade/{name}-v"))
        env = gym.make(env_id)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*spec.*")
            check_env(env.unwrapped)
        env.reset(seed=3)
        terminated, total = False, 0.0
        while not terminated:
            _, reward, terminated, _, info = env.step(env.unwrapped.reference_action())
            total += float(reward)
        assert info["success"] and total == pytest.approx(1.0)
        env.close()


def test_the_designer_prompt_comes_from_its_domain_spec(store_path: Path, tmp_path: Path) -> None:
    store = RegistryStore(store_path)
    corpus = open_corpus(f"jsonl:{write_counting_corpus(tmp_path / 'docs.jsonl')}")
    designer = Designer(None, corpus, store, config=DesignConfig(domain=DOMAIN, calibrate=False))  # type: ignore[arg-type]
    system, user = (m["content"] for m in designer.messages_for(corpus.get("d3")))
    assert "You are designing a TALLY environment" in system
    assert "from spade_example_plugin.verify import read_count, safe_echo" in system  # generated API reference
    assert "read_count(text: str) -> int | None" in system
    assert "spade_example_plugin.verify" in system[system.index("IMPORTS (only these"):]  # the import list
    assert "class CoinTally" in user and "Write one new tally environment" in user  # its worked example
    store.close()


def test_its_topic_weights_steer_the_documents(tmp_path: Path) -> None:
    docs = tmp_path / "topics.jsonl"
    docs.write_text("\n".join(json.dumps({"id": f"d{i}", "title": f"T{i}", "text": "x", "topics": [topic]})
                              for i, topic in enumerate(["Everyday life", "History", "Arts"] * 10)) + "\n")
    weights = topic_weights_for(open_corpus(f"jsonl:{docs}"), get_domain(DOMAIN).topics)
    assert weights == {"Everyday life": 4.0, "*": 0.3}


def test_validation_probes_its_answers_as_the_kind_it_declares() -> None:
    assert answer_kind(DOMAIN) == "numeric"
    source = SeedEnvironment(SEEDS[0]).source()
    accepted = validate_source(source, file="coin_tally.py")
    assert accepted.status == "accepted", accepted.repair_message()
    # a verifier that compares the reply as a string (so "\\boxed{7.0}" is wrong for 7) is wrong in a numeric
    # domain, and only there
    strict = source.replace("if given != self.totals[self.round]:",
                            'if action.strip() != f"\\\\boxed{{{self.totals[self.round]}}}":')
    assert strict != source
    rejected = validate_source(strict, file="strict.py")
    assert rejected.status != "accepted" and "the same integer written as a decimal" in rejected.message
    elsewhere = validate_source(strict.replace('"domain": "tally"', '"domain": "unclaimed"'), file="strict.py")
    assert elsewhere.status == "accepted", elsewhere.repair_message()


def test_one_selfplay_iteration_with_it_as_the_only_domain(tmp_path: Path, tiny_model_dir: Path) -> None:
    setup = {"root": tmp_path, "model": tiny_model_dir, "corpus": write_counting_corpus(tmp_path / "docs.jsonl")}
    config = load_config(SelfPlayConfig, None, [*overrides(setup, "tally", iterations=1), "designer.domains=[tally]",
                                                "agent.domains=[tally]", "agent.max_env_turns=8",
                                                "designer.calibrate=false"])
    SelfPlay(config).run()
    [metrics] = read_metrics(Path(config.run_dir))
    assert not metrics.errors, metrics.errors
    assert [d.domain for d in metrics.designer.designs] == [DOMAIN]
    store = RegistryStore(config.store)
    assert metrics.agent.envs and all(store.get(e).domain == DOMAIN for e in metrics.agent.envs)
    assert metrics.agent.episodes == len(metrics.agent.envs) * 2 * len(ARMS)  # hinted, unhinted, hint-only
    store.close()
