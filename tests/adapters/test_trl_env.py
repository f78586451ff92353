"""TRL adapter: episodes played through ``SpadeToolEnv`` score exactly as SPADE's episode runner scores the same
seeds and actions, groups start from one state, and a real ``GRPOTrainer.train()`` step runs over a multi-turn game and
a tool-use task."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.adapters.session import SessionError
from spade_core.adapters.trl_env import ENDED, environment_factory, grpo_dataset, grpo_rows
from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.rollout.scripted import ScriptedPolicy


def registered(name: str) -> str:
    """The id a bundled seed got in this store (its version depends on the store's history)."""
    return next(env_id for env_id in gym.registry if env_id.startswith(f"spade/{name}-v"))


GAME = registered("TicTacToe")  # two seats, many turns
TOOLS = registered("InventoryRecount")  # one seat, many turns, tool calls


def recorded_moves(env_id: str, seed: int, *, wrong_every: int = 0) -> list[tuple[int, str]]:
    """(seat, action) of one episode where every seat plays the reference move (every ``wrong_every``-th is junk)."""
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=seed)
    moves, done = [], False
    while not done:
        seat = info.get("player_id", 0)
        action = env.reference_action()
        if wrong_every and len(moves) % wrong_every == wrong_every - 1:
            action = "nonsense action"
        moves.append((seat, action))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    return moves


def runner_reward(tokenizer, env_id: str, seed: int, moves: list[tuple[int, str]]) -> tuple[float, bool]:
    """Seat 0's reward and success as SPADE's episode runner records them, every seat replaying ``moves``."""
    script = iter(action for _, action in moves)
    policy = ScriptedPolicy(tokenizer, lambda _prompt: next(script))
    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=4096), max_concurrent_episodes=1,
                           max_context_tokens=100_000, seed=0)
    result = EpisodeRunner(policy, config).run([EpisodeSpec(env_id, seed=seed)])
    seat0 = next(t for t in result.trajectories if t.seat == 0)
    assert seat0.failure is None, seat0.error
    return seat0.reward, seat0.success


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


@pytest.mark.parametrize(("env_id", "seed", "wrong_every"), [(GAME, 0, 0), (GAME, 5, 2), (TOOLS, 1, 0),
                                                             (TOOLS, 2, 2)])
def test_reward_equals_the_episode_runners(tokenizer, env_id, seed, wrong_every):
    moves = recorded_moves(env_id, seed, wrong_every=wrong_every)
    expected = runner_reward(tokenizer, env_id, seed, moves)
    env = environment_factory([GAME, TOOLS])()
    env.reset(env_id=env_id, seed=seed)
    mine = [action for seat, action in moves if seat == 0]
    for action in mine[:-1]:
        assert env.act(action) != ENDED
    env.act(mine[-1])
    assert env.session.done
    assert env.act("one more") == ENDED
    assert (env.get_reward(), env.session.success) == pytest.approx(expected)


def test_a_group_and_its_hinted_twin_start_from_one_state():
    rows = grpo_rows([GAME, TOOLS], seeds=[3], hinted_twins=True)
    assert [(r["env_id"], r["seed"], r["hinted"]) for r in rows] == [
        (GAME, 3, False), (GAME, 3, True), (TOOLS, 3, False), (TOOLS, 3, True)]
    factory = environment_factory([GAME, TOOLS])
    for row in rows:
        first = [factory().reset(**row) for _ in range(3)]
        assert len(set(first)) == 1
        assert ("Hint:" in first[0]) is row["hinted"]
    plain, hinted = (factory().reset(**row) for row in rows[2:4])
    assert hinted.startswith(plain) and hinted != plain


def test_hints_and_reference_stay_private():
    env = environment_factory(TOOLS, hinted=False)()
    obs = env.reset(env_id=TOOLS, seed=0, hinted=True)  # the factory's hinted=False wins over the row
    assert "Hint:" not in obs
    tools = [name for name in dir(env) if not name.startswith("_") and callable(getattr(env, name))]
    assert sorted(tools) == ["act", "get_reward", "reset"]


def test_unknown_or_unselected_environments_are_refused():
    with pytest.raises(SessionError, match="unknown environment"):
        environment_factory("spade/NoSuchEnv-v0")
    with pytest.raises(SessionError, match="does not serve"):
        environment_factory(GAME)().reset(env_id=TOOLS, seed=0)
    with pytest.raises(SessionError, match="no accepted environment"):
        environment_factory(domain="games", tags=["no-such-tag"])
    assert GAME in environment_factory(domain="games")().allowed


def test_grpo_trainer_trains_a_step_over_spade_environments(tiny_model_dir: Path, tmp_path: Path):
    """A real GRPOTrainer.train() step: rows reset their environments (one instance per rollout, seeded from its row),
    the only tool offered is ``act``, and the reward TRL logs is ``get_reward``'s."""
    trl = pytest.importorskip("trl", reason="the TRL adapter needs trl (pip install 'spade-rl[trl]'); CI installs it")
    from importlib.resources import files

    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    tokenizer.chat_template = files("trl").joinpath("chat_templates/qwen2_5.jinja").read_text()
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=2, max_completion_length=8,
        max_steps=1, learning_rate=1e-3, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no",
        max_tool_calling_iterations=2,
    )
    trainer = trl.GRPOTrainer(model=model, args=args, processing_class=tokenizer,
                              train_dataset=grpo_dataset([GAME, TOOLS], seeds=[0]),
                              environment_factory=environment_factory([GAME, TOOLS]))
    trainer.train()
    assert trainer.state.global_step == 1
    assert [t.__name__ for t in trainer.tools] == ["act"]  # the one action tool; reset/get_reward are not tools
    used = trainer._environment_pool[None]
    assert {(e.session.env_id, e.session.seed) for e in used} == {(GAME, 0), (TOOLS, 0)}
    logged = [h for h in trainer.state.log_history if "rewards/SpadeToolEnv/mean" in h]
    assert logged, trainer.state.log_history
    expected = sum(e.get_reward() for e in used) / len(used)
    assert logged[0]["rewards/SpadeToolEnv/mean"] == pytest.approx(expected)
