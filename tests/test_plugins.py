"""Plugin discovery through entry points, failure isolation, and a third-party plugin."""

from __future__ import annotations

import gymnasium as gym

from spade_core.gym_bridge import open_store, register_store
from spade_core.plugins import PluginRegistry, get_plugins, hookimpl
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.validation.seed_gate import gate_plugin_seeds


def test_bundled_plugins_load_through_entry_points() -> None:
    registry = PluginRegistry()
    by_name = {p.name: p for p in registry.loaded}
    assert {"math", "games"} <= set(by_name)
    assert by_name["math"].distribution == "spade-rl"
    domains = {d.name for d in registry.collect_flat("spade_domains")}
    assert {"math", "games"} <= domains


def test_third_party_plugin_contributes_a_domain_and_its_environments() -> None:
    registry = PluginRegistry()
    example = next(p for p in registry.loaded if p.name == "example")
    assert example.distribution == "spade-example-plugin"
    modules = [s.module for s in registry.collect_flat("spade_seed_environments")]
    assert "spade_example_plugin.seeds.coin_tally" in modules
    assert "tally" in {d.name for d in registry.collect_flat("spade_domains")}
    gate_plugin_seeds(open_store())  # its seeds pass the gate (as `spade list` would run it), then register
    register_store()
    env = gym.make("spade/ExampleCoinTally-v0", rounds=2)
    env.reset(seed=0)
    for _ in range(2):
        _, reward, terminated, _, info = env.step(env.unwrapped.reference_action())
    assert terminated and info["success"] and reward == 0.5


class RaisingPlugin:
    @hookimpl
    def spade_seed_environments(self) -> list[SeedEnvironment]:
        raise RuntimeError("boom")


class MisspelledPlugin:
    @hookimpl
    def spade_seed_enviroments(self) -> list[SeedEnvironment]:
        return []


def test_failing_plugin_is_reported_by_name_and_others_keep_working() -> None:
    registry = get_plugins()
    assert registry.register(RaisingPlugin(), "raising-plugin")
    try:
        modules = [s.module for s in registry.collect_flat("spade_seed_environments")]
        assert "spade_domains.games.seeds.tic_tac_toe" in modules
        failure = registry.failures[-1]
        assert failure.plugin == "raising-plugin" and failure.stage == "spade_seed_environments"
        assert "RuntimeError: boom" in str(failure)
    finally:
        registry.unregister("raising-plugin")
        registry.failures.clear()


def test_misspelled_hook_is_rejected_with_a_suggestion() -> None:
    registry = PluginRegistry(load_entry_points=False)
    assert not registry.register(MisspelledPlugin(), "typo")
    assert "did you mean 'spade_seed_environments'" in registry.failures[0].error
    assert registry.loaded == []


def test_plugin_that_fails_to_import_is_isolated() -> None:
    registry = PluginRegistry()
    loaded = {p.name for p in registry.loaded}
    for failure in registry.failures:
        assert failure.plugin not in loaded
        assert failure.stage in {"import", "validate", "register", "load"}


class TypoSeedPlugin:
    @hookimpl
    def spade_seed_environments(self) -> list[SeedEnvironment]:
        return [SeedEnvironment("spade_domains.games.seeds.tic_tac_tow")]


def test_spade_plugins_fails_on_a_seed_module_path_that_does_not_exist() -> None:
    from click.testing import CliRunner

    from spade_core.cli.main import cli

    registry = get_plugins()
    assert CliRunner().invoke(cli, ["plugins"]).exit_code == 0
    assert registry.register(TypoSeedPlugin(), "typo-seed")
    try:
        result = CliRunner().invoke(cli, ["plugins"])
    finally:
        registry.unregister("typo-seed")
    assert result.exit_code == 1
    assert "plugin 'typo-seed'" in result.output and "spade_domains.games.seeds.tic_tac_tow" in result.output
    assert "cannot be found" in result.output
