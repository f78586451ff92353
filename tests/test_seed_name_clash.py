"""Two plugins shipping a seed of the same name: the second is refused with a message naming both plugins, the first
stays registered, and registering (what ``import spade_core`` runs) never fails over it."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

from spade_core.gym_bridge import open_store, register_store, sync_seed_environments
from spade_core.plugins import get_plugins, hookimpl
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.plugins.hookspecs import DISTRIBUTION
from spade_core.plugins.manager import PluginRegistry
from spade_registry.records import Status, Trust

SECRET = (Path(__file__).resolve().parent / "validation" / "corpus" / "good_secret_number.py").read_text(
    encoding="utf-8")


class OneSeed:
    def __init__(self, module: str) -> None:
        self.module = module

    @hookimpl
    def spade_seed_environments(self) -> list[SeedEnvironment]:
        return [SeedEnvironment(self.module)]


@pytest.fixture
def twin_seeds(tmp_path: Path) -> Iterator[None]:
    """Modules ``twin_a`` and ``twin_b``: different code, both named ``Twin``."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    for which in "ab":
        code = SECRET.replace('"SecretNumber"', '"Twin"') + f"\nSHIPPED_BY = {which!r}\n"
        (folder / f"twin_{which}.py").write_text(code, encoding="utf-8")
    sys.path.insert(0, str(folder))
    yield
    sys.path.remove(str(folder))
    for which in "ab":
        sys.modules.pop(f"twin_{which}", None)


def _plugins(*names: str) -> PluginRegistry:
    plugins = PluginRegistry(load_entry_points=False)
    for name in names:  # shipped with SPADE: stored without the gate, so the name rule is tested on its own
        assert plugins.register(OneSeed(f"twin_{name[-1]}"), name, distribution=DISTRIBUTION)
    return plugins


def _accepted(store) -> dict[str, str]:
    return {r.env_id: r.provenance["plugin"] for r in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED)
            if r.name == "Twin"}


def test_the_second_plugin_seed_of_a_name_is_refused_naming_both_and_the_first_stays(tmp_path: Path,
                                                                                    twin_seeds: None) -> None:
    store = open_store(tmp_path / "store.sqlite3")
    first = sync_seed_environments(store, _plugins("plugin-a"))
    assert first.added == ["spade/Twin-v0"] and not first.clashes

    both = sync_seed_environments(store, _plugins("plugin-b", "plugin-a"))  # whatever order they load in
    (clash,) = both.clashes
    assert (clash.plugin, clash.kept_plugin) == ("plugin-b", "plugin-a")
    assert "'plugin-b'" in str(clash) and "'plugin-a'" in str(clash) and "'Twin'" in str(clash)
    assert str(clash) in both.problems and not both.errors and not both.retired
    assert _accepted(store) == {"spade/Twin-v0": "plugin-a"}

    again = sync_seed_environments(store, _plugins("plugin-b", "plugin-a"))  # reported at every sync, not once
    assert [c.plugin for c in again.clashes] == ["plugin-b"] and not again.skipped

    alone = sync_seed_environments(store, _plugins("plugin-b"))  # the first plugin uninstalled: the name is free
    assert not alone.clashes and alone.retired == ["spade/Twin-v0"]
    assert _accepted(store) == {"spade/Twin-v1": "plugin-b"}


@pytest.mark.parametrize("order", [("plugin-a", "plugin-b"), ("plugin-b", "plugin-a")])
def test_plugins_installed_together_give_the_name_to_the_first_by_plugin_name(tmp_path: Path, twin_seeds: None,
                                                                              order: tuple[str, str]) -> None:
    store = open_store(tmp_path / "store.sqlite3")
    result = sync_seed_environments(store, _plugins(*order))
    assert [(c.plugin, c.kept_plugin) for c in result.clashes] == [("plugin-b", "plugin-a")]
    assert _accepted(store) == {"spade/Twin-v0": "plugin-a"}


def test_registering_with_clashing_plugins_installed_warns_and_registers_the_first(tmp_path: Path,
                                                                                  twin_seeds: None) -> None:
    plugins = get_plugins()
    for name in ("plugin-a", "plugin-b"):
        assert plugins.register(OneSeed(f"twin_{name[-1]}"), name, distribution=DISTRIBUTION)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            added = register_store(tmp_path / "store.sqlite3")  # what import spade_core runs
        assert "spade/Twin-v0" in added
        (warning,) = [w for w in caught if "'Twin'" in str(w.message)]
        assert "'plugin-a'" in str(warning.message) and "'plugin-b'" in str(warning.message)
        assert open_store(tmp_path / "store.sqlite3").get("spade/Twin-v0").module == "twin_a"
        env = gym.make("spade/Twin-v0")
        try:
            obs, _ = env.reset(seed=1)
            assert isinstance(obs, str) and obs
        finally:
            env.close()
    finally:
        for name in ("plugin-a", "plugin-b"):
            plugins.unregister(name)
        gym.registry.pop("spade/Twin-v0", None)
