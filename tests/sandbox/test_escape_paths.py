"""Policy escapes hidden inside a renamed bundled seed, driven through the public paths: ``spade validate`` rejects
them at the policy; ``gymnasium.make`` and the episode runner contain such code (forced into the store as accepted)."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest
from click.testing import CliRunner

import spade_core
from spade_core.cli.main import cli
from spade_core.errors import SandboxError
from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

SEED = Path(__file__).resolve().parents[2] / "plugins" / "domains" / "games" / "seeds" / "mastermind.py"

ATTACKS = {
    "abcmeta_factory": (["from fractions import Fraction"], "type(Fraction)('Evil', (), {'x': 1})"),
    "enumtype_factory": (["import re"], "type(type(re.I))('Evil', (), {})"),
    "enum_functional_api": (["import re"], "type(re.I)('Evil', 'A B')"),
    "dataclass_foreign_class": (["from dataclasses import dataclass", "from fractions import Fraction"],
                                "dataclass(Fraction)"),
    "abc_registration": (["from fractions import Fraction"], "Fraction.register(type(self))"),
    "typing_forwarded_registration": (["import typing"], "typing.Sequence.register(type(self))"),
    "abc_base": (["from typing import Iterable"], "class Evil(Iterable):\n            pass"),
    "shared_tool_table": (["from spade_tools.calculator import Calculator"],
                          "Calculator.TOOL_DEFS[0].parameters['injected'] = 1"),
}


def renamed_seed(name: str, imports: list[str], statement: str) -> str:
    """The Mastermind seed under another name, with the attack's imports and the attack at the start of reset."""
    source = SEED.read_text()
    source = source.replace('"name": "Mastermind"', f'"name": "Renamed{name.title().replace("_", "")}"', 1)
    first_import = source.index("\nfrom ") + 1
    source = source[:first_import] + "\n".join(imports) + "\n" + source[first_import:]
    marker = "    def reset(self, rng, options):\n"
    assert marker in source
    return source.replace(marker, marker + "        " + statement + "\n", 1)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_spade_validate_rejects_the_escape_at_the_policy(attack: str, tmp_path: Path) -> None:
    imports, statement = ATTACKS[attack]
    path = tmp_path / f"{attack}.py"
    path.write_text(renamed_seed(attack, imports, statement))
    result = CliRunner().invoke(cli, ["--store", str(tmp_path / "store.sqlite3"), "validate", str(path), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["verdict"] == "rejected" and report["env_id"] is None
    assert "policy" in report["message"].lower(), report["message"]


@pytest.mark.parametrize("attack", ["abcmeta_factory", "abc_registration", "shared_tool_table"])
def test_gym_make_contains_the_escape(attack: str, tmp_path: Path) -> None:
    imports, statement = ATTACKS[attack]
    store_path = tmp_path / "forced.sqlite3"
    source = renamed_seed(attack, imports, statement)
    manifest = {"name": f"Forced{attack.title().replace('_', '')}", "domain": "games",
                "description": "an attack forced into the store", "reward_range": [0, 1], "max_turns": 12}
    with RegistryStore(store_path) as store:
        record, _ = store.add(code=source, manifest=manifest, status=Status.QUARANTINED, trust=Trust.DESIGNER)
        accepted = store.set_status(record.rid, Status.ACCEPTED)
    assert accepted.env_id in spade_core.register_store(store_path, sync_seeds=False)
    env = gym.make(accepted.env_id)
    try:
        with pytest.raises(SandboxError) as info:
            env.reset(seed=0)
        assert info.value.cause == "policy", info.value
    finally:
        env.close()


def test_the_episode_runner_records_the_escape_as_an_environment_failure(tmp_path: Path, tiny_generator) -> None:
    source = SEED.read_text().replace('"name": "Mastermind"', '"name": "RenamedRunnerAttack"', 1)
    first_import = source.index("\nfrom ") + 1
    source = source[:first_import] + "from fractions import Fraction\n" + source[first_import:]
    marker = "    def step(self, action):\n"
    source = source.replace(marker, marker + "        type(Fraction)('Evil', (), {})\n", 1)
    store_path = tmp_path / "runner.sqlite3"
    manifest = {"name": "ForcedRunnerAttack", "domain": "games", "description": "an attack forced into the store",
                "reward_range": [0, 1], "max_turns": 12}
    with RegistryStore(store_path) as store:
        record, _ = store.add(code=source, manifest=manifest, status=Status.QUARANTINED, trust=Trust.DESIGNER)
        accepted = store.set_status(record.rid, Status.ACCEPTED)
    spade_core.register_store(store_path, sync_seeds=False)
    runner = EpisodeRunner(tiny_generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=8, temperature=1.0)))
    result = runner.run([EpisodeSpec(accepted.env_id, seed=s) for s in range(2)])
    assert result.stats.env_failures == 2
    for trajectory in result.trajectories:
        assert trajectory.failure == "env_error" and "policy" in (trajectory.error or "")
        assert "metaclass" in trajectory.error or "type()" in trajectory.error or "ABCMeta" in trajectory.error
