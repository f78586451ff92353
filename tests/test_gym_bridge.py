"""Gymnasium registration: any RL code can make, vectorise and inspect SPADE environments."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import gymnasium as gym
import pytest
from fixture_envs import counter_env
from gymnasium.utils.env_checker import check_env

import spade_core
from spade_core.contract import SpadeEnv
from spade_core.errors import ManifestError
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

BUNDLED = ["spade/TicTacToe-v0", "spade/ArithmeticChain-v0"]


@pytest.mark.parametrize("env_id", BUNDLED)
def test_bundled_env_passes_check_env(env_id: str) -> None:
    env = gym.make(env_id)
    assert isinstance(env.unwrapped, SpadeEnv)
    check_env(env.unwrapped)


def test_make_passes_knobs_and_manifest_limits() -> None:
    env = gym.make("spade/ArithmeticChain-v0", terms=5, digits=1)
    obs, _ = env.reset(seed=0)
    assert obs.count("(") == 4
    assert env.unwrapped.knobs == {"terms": 5, "digits": 1}
    assert gym.spec("spade/TicTacToe-v0").max_episode_steps == 30
    with pytest.raises(ManifestError, match="terms"):
        gym.make("spade/ArithmeticChain-v0", terms=99)


def test_single_turn_ends_terminated_not_truncated() -> None:
    env = gym.make("spade/ArithmeticChain-v0")
    env.reset(seed=3)
    _, reward, terminated, truncated, info = env.step(env.unwrapped.reference_action())
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)


def test_spec_is_json_serialisable_and_register_envs_works() -> None:
    gym.register_envs(spade_core)
    spec = gym.spec("spade/TicTacToe-v0")
    data = json.loads(spec.to_json())
    assert data["entry_point"] == "spade_core.gym_bridge.make:make_env"
    assert data["kwargs"] == {"env_id": "spade/TicTacToe-v0"}


def test_unknown_id_raises_gymnasiums_own_error() -> None:
    with pytest.raises(gym.error.NameNotFound):
        gym.make("spade/NoSuchEnvironment-v0")
    with pytest.raises(gym.error.VersionNotFound):
        gym.make("spade/TicTacToe-v7")


def test_pprint_registry_lists_spade_envs() -> None:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        gym.pprint_registry()
    assert "TicTacToe-v0" in buffer.getvalue()


def test_module_prefix_works_without_prior_import() -> None:
    code = (
        "import gymnasium as gym; e = gym.make('spade_core:spade/TicTacToe-v0'); o, i = e.reset(seed=0);"
        "print(type(e.unwrapped).__name__, i['player_id'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["SpadeEnv", "0"]


@pytest.mark.parametrize(
    ("mode", "vector_kwargs"), [("sync", {}), ("async", {"shared_memory": True}), ("async", {"shared_memory": False})]
)
def test_make_vec_returns_real_text_observations(mode: str, vector_kwargs: dict) -> None:
    envs = gym.make_vec("spade/TicTacToe-v0", num_envs=3, vectorization_mode=mode, vector_kwargs=vector_kwargs)
    try:
        obs, info = envs.reset(seed=[1, 2, 3])
        assert all(o.startswith("Game start.") for o in obs)
        obs, rewards, terminated, truncated, info = envs.step(["5", "1", "nonsense"])
        assert "Player 0 marked cell 5." in obs[0]
        assert "Player 0 marked cell 1." in obs[1]
        assert obs[2].startswith("Invalid move")
        assert list(info["player_id"]) == [1, 1, 0]
        obs, *_ = envs.step(["1", "5", "9"])
        assert "Player 1 marked cell 1." in obs[0] and "Player 0 marked cell 9." in obs[2]
    finally:
        envs.close()


def test_async_vector_env_in_spawn_and_forkserver_workers() -> None:
    for context in ("spawn", "forkserver"):
        envs = gym.make_vec(
            "spade_core:spade/ArithmeticChain-v0", num_envs=2, vectorization_mode="async",
            vector_kwargs={"context": context},
        )
        try:
            obs, _ = envs.reset(seed=[5, 6])
            assert all(o.startswith("Compute") for o in obs)
        finally:
            envs.close()


def test_refresh_registers_newly_accepted_records(tmp_path: Path) -> None:
    store_path = tmp_path / "other.sqlite3"
    source = Path(counter_env.__file__).read_text()
    with RegistryStore(store_path) as store:
        record, _ = store.add(code=source, manifest=counter_env.ENV_SPEC, status=Status.QUARANTINED,
                              trust=Trust.BUNDLED, module="fixture_envs.counter_env")
        assert spade_core.register_store(store_path, sync_seeds=False) == []
        accepted = store.set_status(record.rid, Status.ACCEPTED)
    assert spade_core.register_store(store_path, sync_seeds=False) == [accepted.env_id]
    env = gym.make(accepted.env_id, span=3)
    env.reset(seed=0)
    assert gym.spec(accepted.env_id).kwargs["store"] == str(store_path.resolve())
    assert env.unwrapped.knobs == {"span": 3}
