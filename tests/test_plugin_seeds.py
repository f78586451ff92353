"""A third-party plugin's seeds go through the validation gate before they are registered (once per code), and a
plugin author can validate a seed module by path before and after installing it.

The plugin here is registered through pluggy in-process (distribution ``local``, so third-party); its seed modules
are files written to a folder on ``sys.path``, made from the validation corpus's accepted ``SecretNumber``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from click.testing import CliRunner

from spade_core.cli.consoles import console, err_console
from spade_core.cli.main import cli
from spade_core.gym_bridge import open_store, register_store
from spade_core.gym_bridge.seeds import GATE_KEY, refused_seeds, sync_seed_environments
from spade_core.plugins import get_plugins, hookimpl
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.validation.seed_gate import PluginSeedGate, gate_plugin_seeds
from spade_registry.records import Status, Trust

GOOD = (Path(__file__).parent / "validation" / "corpus" / "good_secret_number.py").read_text(encoding="utf-8")
NEVER_SOLVES = GOOD.replace('"name": "SecretNumber"', '"name": "PluginSecretWrong"').replace(
    'return f"\\\\boxed{{{self.target}}}"', 'return f"\\\\boxed{{{self.target + 1}}}"')


class SeedPlugin:
    def __init__(self, *modules: str) -> None:
        self.modules = modules

    @hookimpl
    def spade_seed_environments(self) -> list[SeedEnvironment]:
        return [SeedEnvironment(m) for m in self.modules]


@pytest.fixture
def seed_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder of seed modules on ``sys.path`` (``plugin_secret_good``, ``plugin_secret_wrong``)."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "plugin_secret_good.py").write_text(GOOD.replace('"SecretNumber"', '"PluginSecret"'), encoding="utf-8")
    (folder / "plugin_secret_wrong.py").write_text(NEVER_SOLVES, encoding="utf-8")
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))
    for module in ("plugin_secret_good", "plugin_secret_wrong"):
        sys.modules.pop(module, None)


def installed(*modules: str) -> str:
    """Registers a third-party plugin offering ``modules`` (the caller unregisters it); returns its name."""
    assert get_plugins().register(SeedPlugin(*modules), "secret-seeds")
    return "secret-seeds"


def test_the_never_solving_reference_is_exactly_the_broken_part() -> None:
    assert NEVER_SOLVES.count("self.target + 1") == 1 and "PluginSecretWrong" in NEVER_SOLVES


def test_a_good_seed_is_gated_once_and_registered_a_broken_one_refused_and_listed(
        seed_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store_path = tmp_path / "registry.sqlite3"
    plugin = installed("plugin_secret_good", "plugin_secret_wrong")
    try:
        store = open_store(store_path)
        assert {"plugin_secret_good", "plugin_secret_wrong"} <= set(sync_seed_environments(store).pending)  # no gate
        assert not store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED) or all(
            r.name != "PluginSecret" for r in store.query(trust=Trust.BUNDLED))  # pending: not stored
        result = gate_plugin_seeds(store)
        assert "spade/PluginSecret-v0" in result.added and not result.pending
        [refused] = result.refused
        assert (refused.plugin, refused.module, refused.stage) == (plugin, "plugin_secret_wrong", "reference")
        good = store.get("spade/PluginSecret-v0")
        assert good.trust is Trust.BUNDLED and good.provenance["source"] == "plugin"
        assert good.report is not None and good.report["trust"] == "plugin" and good.report[GATE_KEY]
        [wrong] = [r for r in store.query(status=Status.FAILED) if r.name == "PluginSecretWrong"]
        assert wrong.failed_stage == "reference" and wrong.report is not None and wrong.env_id is None
        assert gate_plugin_seeds(store).skipped  # nothing changed: one read

        # a new store reuses the kept verdicts: the reports are the ones stored above, not a second validation's
        other = open_store(tmp_path / "other.sqlite3")
        assert set(result.added) <= set(gate_plugin_seeds(other).added)
        assert other.get("spade/PluginSecret-v0").report == good.report
        assert gate_plugin_seeds(other).refused == [] and refused_seeds(other) == [refused]
        # another gate (a new version, another stage list) judges the seeds again
        again = sync_seed_environments(open_store(tmp_path / "third.sqlite3"), gate=PluginSeedGate(key="another"))
        assert set(result.added) <= set(again.added) and len(again.refused) == 1

        registered = register_store(store_path)
        assert "spade/PluginSecret-v0" in registered and not any("PluginSecretWrong" in i for i in registered)
        with pytest.raises(gym.error.Error):
            gym.make("spade/PluginSecretWrong-v0")

        listed = CliRunner().invoke(cli, ["--store", str(store_path), "list", "--json"])
        assert listed.exit_code == 0, listed.output
        ids = [json.loads(line)["id"] for line in listed.stdout.splitlines() if line.startswith("{")]
        assert "spade/PluginSecret-v0" in ids and not any("PluginSecretWrong" in str(i) for i in ids)

        monkeypatch.setattr(console, "width", 400)
        monkeypatch.setattr(err_console, "width", 400)
        shown = CliRunner().invoke(cli, ["--store", str(store_path), "plugins"])
        assert shown.exit_code == 1
        assert f"plugin {plugin!r}: seed plugin_secret_wrong was refused by the validation gate at stage " \
               "reference" in shown.output
        assert wrong.report["message"][:40] in shown.output  # the gate's own message
    finally:
        get_plugins().unregister(plugin)


def test_validate_by_path_before_and_after_installing(seed_folder: Path, tmp_path: Path) -> None:
    store = ["--store", str(tmp_path / "registry.sqlite3")]
    seed = seed_folder / "plugin_secret_good.py"

    def verdict(path: Path) -> dict:
        result = CliRunner().invoke(cli, [*store, "validate", str(path), "--json"])
        return json.loads(next(line for line in result.stdout.splitlines() if line.startswith("{")))

    assert verdict(seed)["verdict"] == "accepted"  # before: an ordinary candidate
    plugin = installed("plugin_secret_good")
    try:
        before = gate_plugin_seeds(open_store(tmp_path / "registry.sqlite3"))
        assert before.added == ["spade/PluginSecret-v0"]
        after = verdict(seed)  # after: the installed seed itself (its own name, its own stored record)
        assert after["verdict"] == "accepted", after
        claimant = tmp_path / "claimant.py"  # another module claiming the installed seed's name
        claimant.write_text(seed.read_text(encoding="utf-8").replace("halve the interval", "split the range"),
                            encoding="utf-8")
        refused = verdict(claimant)
        assert refused["stage"] == "exact_duplicate" and "belongs to the bundled environment" in refused["message"]
    finally:
        get_plugins().unregister(plugin)
