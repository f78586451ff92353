"""The episode runner: batching across environments, token-exact trajectories, seats, hints and failures."""

from __future__ import annotations

import json
import re
import time

import pytest
from rollout_envs import first_free_cell, make_test_env

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.deadlines import Deadline, StopRequest
from spade_core.models.base import SamplingParams
from spade_core.rollout import (
    EpisodeRunner,
    EpisodeSpec,
    RolloutConfig,
    RolloutConfigError,
    ScriptedPolicy,
    Trajectory,
    TrajectoryFormatError,
)
from spade_core.rollout.trajectory import FINISH_TIME_LIMIT

ARITH = "spade/ArithmeticChain-v0"
TTT = "spade/TicTacToe-v0"
SMALL = {"terms": 2, "digits": 1}


def runner_for(generator, **config) -> EpisodeRunner:
    config.setdefault("sampling", SamplingParams(max_new_tokens=6))
    return EpisodeRunner(generator, RolloutConfig(**config), make_env=make_test_env)


def test_all_pending_turns_go_in_one_generate_call(tiny_generator) -> None:
    specs = [EpisodeSpec(ARITH, seed=s, env_kwargs=SMALL) for s in range(6)]
    calls = tiny_generator.stats.calls
    result = runner_for(tiny_generator).run(specs)
    assert result.stats.generate_calls == 1 == tiny_generator.stats.calls - calls
    assert result.stats.max_batch == 6 and result.stats.episodes == 6
    one_at_a_time = runner_for(tiny_generator, max_concurrent_episodes=1).run(specs)
    assert one_at_a_time.stats.generate_calls == 6 and one_at_a_time.stats.max_batch == 1


def test_multi_turn_episodes_batch_every_round(tiny_generator) -> None:
    specs = [EpisodeSpec("test/ThreeTurns", seed=s) for s in range(4)]
    result = runner_for(tiny_generator).run(specs)
    assert result.stats.generate_calls == 3 and result.stats.max_batch == 4 and result.stats.turns == 12
    slots = runner_for(tiny_generator, max_concurrent_episodes=3).run(specs)
    assert slots.stats.generate_calls == 6  # 3 rounds of 3 episodes, then 3 rounds for the last one
    assert [t.token_ids for t in slots.trajectories] != [] and len(slots.trajectories) == 4


def test_multi_turn_tokens_mask_and_turn_boundaries(tiny_generator) -> None:
    result = runner_for(tiny_generator).run([EpisodeSpec("test/ThreeTurns", seed=0)])
    (traj,) = result.trajectories
    tok = tiny_generator.tokenizer
    assert len(traj.turns) == 3 and traj.finish == "terminated" and traj.success
    assert traj.turns[0].env_start == 0 and traj.turns[0].gen_start == traj.prompt_length
    for k, turn in enumerate(traj.turns):
        context = tok.decode(traj.token_ids[turn.env_start:turn.gen_start])
        assert f"OBS-{k}" in context  # the observation is environment text, masked out
        assert set(traj.loss_mask[turn.env_start:turn.gen_start]) == {0}
        assert set(traj.loss_mask[turn.gen_start:turn.gen_end]) == {1}
        generated = traj.token_ids[turn.gen_start:turn.gen_end]
        assert tok.decode(generated, skip_special_tokens=True).startswith(turn.action)
        assert all(lp < 0 for lp in traj.logprobs[turn.gen_start:turn.gen_end])
    assert all(lp == 0.0 for lp, m in zip(traj.logprobs, traj.loss_mask) if m == 0)
    assert traj.reward == pytest.approx(sum(t.reward for t in traj.turns))


def test_hint_only_in_hinted_rollouts_and_refreshed_each_turn(tiny_generator) -> None:
    result = runner_for(tiny_generator).run(
        [EpisodeSpec("test/ThreeTurns", seed=0, hinted=True), EpisodeSpec("test/ThreeTurns", seed=0)])
    hinted, plain = result.trajectories
    text = tiny_generator.tokenizer.decode(hinted.token_ids)
    assert all(f"Hint: HINT-{k}" in text for k in range(3))
    assert [t.hint for t in hinted.turns] == ["HINT-0", "HINT-1", "HINT-2"]
    assert "HINT" not in tiny_generator.tokenizer.decode(plain.token_ids) and hinted.hinted and not plain.hinted
    system = runner_for(tiny_generator, hint_placement="system").run([EpisodeSpec("test/ThreeTurns", seed=0, hinted=True)])
    prompt = tiny_generator.tokenizer.decode(system.trajectories[0].prompt_ids)
    assert prompt.index("HINT-0") < prompt.index("<|im_start|>user")


def test_two_player_game_gives_one_trajectory_per_seat_with_its_reward(tiny_generator) -> None:
    policy = ScriptedPolicy(tiny_generator.tokenizer, first_free_cell)
    result = runner_for(policy, max_concurrent_episodes=8).run([EpisodeSpec(TTT, seed=s) for s in range(2)])
    assert len(result.trajectories) == 4
    for x, o in zip(result.trajectories[::2], result.trajectories[1::2]):
        # X takes 1, O 2, X 3, O 4, X 5, O 6, X 7: X completes the 3-5-7 diagonal.
        assert (x.seat, o.seat, x.num_seats) == (0, 1, 2) and x.episode_id == o.episode_id
        assert (x.reward, o.reward) == (1.0, -1.0) and x.success and not o.success
        assert [t.action for t in x.turns] == ["1", "3", "5", "7"] and [t.action for t in o.turns] == ["2", "4", "6"]
        assert "player 1" in tiny_generator.tokenizer.decode(o.prompt_ids)
    assert result.stats.generate_calls == 7 and result.stats.max_batch == 2


def test_two_player_game_with_the_tiny_model_keeps_seats_apart(tiny_generator) -> None:
    result = runner_for(tiny_generator).run([EpisodeSpec(TTT, seed=s, hinted=s == 1) for s in range(2)])
    by_episode: dict[str, list[Trajectory]] = {}
    for t in result.trajectories:
        by_episode.setdefault(t.episode_id, []).append(t)
        assert t.failure is None and t.turns
        assert f"player {t.seat}" in tiny_generator.tokenizer.decode(t.prompt_ids)
    for seats in by_episode.values():
        assert [t.seat for t in seats] in ([0], [0, 1])  # a seat that never had to move has nothing to train on
        assert all(-1.0 <= t.reward <= 1.0 for t in seats)
        if len(seats) == 2 and seats[0].finish == "terminated":
            assert sum(t.reward for t in seats) == pytest.approx(0.0)  # zero-sum per-seat rewards


def test_env_errors_end_only_their_episode(tiny_generator) -> None:
    specs = [
        EpisodeSpec("test/ThreeTurns", seed=0),
        EpisodeSpec("test/ThreeTurns", seed=1, env_kwargs={"mode": "bad_reward"}),
        EpisodeSpec("test/ThreeTurns", seed=2, env_kwargs={"mode": "raise_reset"}),
        EpisodeSpec("test/ThreeTurns", seed=3, env_kwargs={"mode": "raise_step"}),
        EpisodeSpec("test/ThreeTurns", seed=4),
    ]
    result = runner_for(tiny_generator).run(specs)
    ok, bad_reward, bad_reset, bad_step, ok2 = result.trajectories
    assert ok.failure is None and ok2.failure is None and len(ok.turns) == len(ok2.turns) == 3
    assert bad_reward.failure == "env_error" and "reward_range" in bad_reward.error and len(bad_reward.turns) == 2
    assert bad_reset.failure == "env_error" and "reset exploded" in bad_reset.error and not bad_reset.turns
    assert bad_step.failure == "env_error" and "step exploded" in bad_step.error
    assert not bad_reward.trainable and result.stats.env_failures == 3
    unknown = runner_for(tiny_generator).run([EpisodeSpec("spade/NoSuchEnv-v0", seed=0)])
    assert unknown.trajectories[0].failure == "env_error"


def test_generation_errors_end_only_their_episode(tiny_generator) -> None:
    def act(prompt: str) -> str:
        first = int(re.search(r"Compute \(+(\d+)", prompt).group(1))
        if first % 2:
            raise RuntimeError("scripted failure")
        return "\\boxed{0}"

    policy = ScriptedPolicy(tiny_generator.tokenizer, act)
    specs = [EpisodeSpec(ARITH, seed=s, env_kwargs=SMALL) for s in range(12)]
    result = runner_for(policy).run(specs)
    failed = [t for t in result.trajectories if t.failed]
    assert failed and len(failed) < len(specs)
    assert all(t.failure == "generation_error" and "scripted failure" in t.error for t in failed)
    assert all(t.turns and t.finish == "terminated" for t in result.trajectories if not t.failed)


class RaisingOnPoisonBatch(ScriptedPolicy):
    """A backend whose whole batch call raises when any prompt is poisoned (a real failure mode of servers)."""

    def generate(self, prompts, params):
        texts = [self.tokenizer.decode(p) for p in prompts]
        if any("OBS-0" in t and "seed-poison" in t for t in texts):
            raise ConnectionError("backend crashed on this prompt")
        return super().generate(prompts, params)


def test_a_raising_generate_call_is_retried_prompt_by_prompt(tiny_generator) -> None:
    policy = RaisingOnPoisonBatch(tiny_generator.tokenizer, lambda text: "fine")
    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=4), system_prompt="{role} {env_id}")
    runner = EpisodeRunner(policy, config, make_env=make_test_env)
    specs = [EpisodeSpec("test/ThreeTurns", seed=0), EpisodeSpec("test/ThreeTurns", seed=1, role="agent")]
    result = runner.run(specs)
    assert all(t.failure is None for t in result.trajectories)
    poisoned = EpisodeRunner(policy, RolloutConfig(sampling=SamplingParams(max_new_tokens=4),
                                                   system_prompt="{role} seed-poison"), make_env=make_test_env)
    out = poisoned.run(specs)
    assert all(t.failure == "generation_error" and "ConnectionError" in t.error for t in out.trajectories)
    assert out.stats.generate_calls == 3  # the batch, then each prompt alone


def test_same_seed_same_trajectories(tiny_generator) -> None:
    specs = [EpisodeSpec("test/ThreeTurns", seed=s) for s in range(3)]
    a = runner_for(tiny_generator).run(specs, seed=11).trajectories
    b = runner_for(tiny_generator).run(specs, seed=11).trajectories
    c = runner_for(tiny_generator).run(specs, seed=12).trajectories
    assert [t.to_dict() for t in a] == [t.to_dict() for t in b]
    assert [t.token_ids for t in a] != [t.token_ids for t in c]


def test_context_limit_ends_the_episode_cleanly(tiny_generator) -> None:
    first = runner_for(tiny_generator).run([EpisodeSpec("test/ThreeTurns", seed=0)]).trajectories[0]
    limit = first.turns[1].gen_end + 6  # room for two turns only
    (traj,) = runner_for(tiny_generator, max_context_tokens=limit).run([EpisodeSpec("test/ThreeTurns", seed=0)]).trajectories
    assert traj.finish == "context_limit" and traj.failure is None and len(traj.turns) == 2
    assert traj.turns[-1].gen_end == len(traj.token_ids)


def test_trajectories_round_trip_through_json(tiny_generator) -> None:
    result = runner_for(tiny_generator).run([EpisodeSpec("test/ThreeTurns", seed=0, hinted=True),
                                             EpisodeSpec("test/ThreeTurns", seed=1, env_kwargs={"mode": "bad_reward"})])
    for traj in result.trajectories:
        text = traj.to_json()
        assert Trajectory.from_json(text) == traj
        json.loads(text)
    broken = result.trajectories[0].to_dict()
    broken["loss_mask"] = broken["loss_mask"][:-1]
    with pytest.raises(TrajectoryFormatError, match="one entry per token"):
        Trajectory.from_dict(broken)
    with pytest.raises(TrajectoryFormatError, match="unknown field"):
        Trajectory.from_dict({**result.trajectories[0].to_dict(), "surprise": 1})


def test_bad_configuration_is_rejected(tiny_generator) -> None:
    with pytest.raises(RolloutConfigError, match="max_concurrent_episodes"):
        RolloutConfig(max_concurrent_episodes=0)
    with pytest.raises(RolloutConfigError, match="hint_placement"):
        RolloutConfig(hint_placement="nowhere")
    with pytest.raises(RolloutConfigError, match="role"):
        runner_for(tiny_generator).run([EpisodeSpec(ARITH, seed=0, role="critic")])


def test_chat_templates_that_rewrite_history_fail_the_episode_not_the_run(tiny_generator) -> None:
    import copy

    from spade_core.rollout import ChatTemplateError, ScriptedPolicy

    tokenizer = copy.deepcopy(tiny_generator.tokenizer)
    tokenizer.chat_template = "{{ messages[-1]['content'] }}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    policy = ScriptedPolicy(tokenizer, lambda text: "ok")
    result = runner_for(policy).run([EpisodeSpec("test/ThreeTurns", seed=0), EpisodeSpec(ARITH, seed=0, env_kwargs=SMALL)])
    multi, single = result.trajectories
    assert multi.failure == "generation_error" and "prefix-stable" in multi.error and len(multi.turns) == 1
    assert single.failure is None and single.turns  # single-turn episodes never need a continuation
    tokenizer.chat_template = None
    with pytest.raises(ChatTemplateError, match="chat_template"):
        EpisodeRunner(ScriptedPolicy(tokenizer, lambda text: "ok"))


class StopsAfterCalls(ScriptedPolicy):
    """Replies "fine"; its ``calls``-th generate call asks the run to stop (as a signal handler would)."""

    def __init__(self, tokenizer, stop: StopRequest, calls: int) -> None:
        super().__init__(tokenizer, lambda text: "fine")
        self.stop, self.stop_at = stop, calls

    def generate(self, prompts, params):
        if self.calls + 1 == self.stop_at:
            self.stop.request("test")
        return super().generate(prompts, params)


def test_a_passed_deadline_ends_running_episodes_as_time_limit_and_starts_no_more(tiny_generator) -> None:
    stop = StopRequest()
    policy = StopsAfterCalls(tiny_generator.tokenizer, stop, calls=2)
    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=4), max_concurrent_episodes=3)
    specs = [EpisodeSpec("test/ThreeTurns", seed=s) for s in range(5)]
    result = EpisodeRunner(policy, config, make_env=make_test_env).run(specs, deadline=Deadline(stop=stop))
    assert result.stats.generate_calls == 2  # no turn after the deadline
    assert result.stats.time_limited == 3 and result.stats.not_started == 2 and result.stats.episodes == 3
    for traj in result.trajectories:
        assert traj.finish == FINISH_TIME_LIMIT and traj.failure is None and len(traj.turns) == 2
        assert traj.turns[-1].gen_end == len(traj.token_ids)  # recorded as played so far
        assert not traj.trainable  # censored: never trained on
        assert Trajectory.from_json(traj.to_json()) == traj


def test_an_expired_deadline_starts_nothing(tiny_generator) -> None:
    specs = [EpisodeSpec("test/ThreeTurns", seed=s) for s in range(3)]
    result = runner_for(tiny_generator).run(specs, deadline=Deadline(at=time.monotonic() - 1.0))
    assert result.trajectories == [] and result.stats.not_started == 3 and result.stats.generate_calls == 0


def test_a_distant_deadline_changes_nothing(tiny_generator) -> None:
    specs = [EpisodeSpec("test/ThreeTurns", seed=s) for s in range(2)]
    bounded = runner_for(tiny_generator).run(specs, seed=3, deadline=Deadline.after(3600.0)).trajectories
    free = runner_for(tiny_generator).run(specs, seed=3).trajectories
    assert [t.to_dict() for t in bounded] == [t.to_dict() for t in free]
