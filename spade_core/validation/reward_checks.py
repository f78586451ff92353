"""Rewards stay in the stated range and mean what they say over whole episodes: the ``reward_range`` stage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spade_core.errors import (
    ContractError,
)
from spade_core.validation.episodes import (
    Episode,
)
from spade_core.validation.mutations import memorising, program_in, wrong_answer
from spade_core.validation.probes import (
    edge_inputs,
)
from spade_core.validation.report import StageResult

if TYPE_CHECKING:
    pass

from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.validation.candidate import Candidate
from spade_core.validation.replay import (
    answer_template,
    labelled,
    random_legal_games,
    replaying,
    single_player,
)
from spade_core.validation.report import fail, ok


def _reward_error(err: BaseException | None) -> bool:
    return isinstance(err, ContractError) and "reward" in str(err)


def check_reward_range(c: Candidate) -> StageResult:
    """Rewards inside the declared range and meaning what success means: success implies terminated, the top
    reward coincides with success, a malformed action never earns more than a wrong one (nor, in a single-player
    game that lists its legal moves, more than a lost game of legal moves), edge inputs (nan, inf,
    huge, empty, very long, non-ASCII) keep the reward finite and in range, and observations stay bounded."""
    assert c.manifest is not None
    stage = "reward_range"
    low, high = c.manifest.reward_range
    edge = _edge_episodes(c)
    episodes = [*c.all_episodes]
    for episode in episodes:
        if _reward_error(episode.error):
            return fail(stage, f"seed {episode.seed}: after {_acts(episode)} the reward is not a finite number "
                        f"({episode.error})", ["the reward is computed from the parsed action (float('nan'), "
                                                 "inf)"], ["compute the reward from the verdict only; reject "
                                                           "non-finite numbers as malformed"])
        for reward in episode.rewards:
            if not low - 1e-9 <= reward <= high + 1e-9:
                return fail(stage, f"seed {episode.seed}: reward {reward} after {_acts(episode)} is outside the "
                            f"declared [{low}, {high}]", ["reward_range does not match the reward code"],
                            ["declare the true range in ENV_SPEC or clip the reward"])
        for i, info in enumerate(episode.infos):
            if info.get("success") and not episode.steps[i][3]:
                return fail(stage, f"seed {episode.seed}: turn {i + 1} reports success but the episode goes on "
                            "(terminated is False)", ["success is set before the task ends"],
                            ["return terminated=True on the step that succeeds"])
    for probe, episode in edge:
        if episode.success:
            return fail(stage, f"seed {episode.seed}: the edge input {probe.what} ({probe.action[:40]!r}) "
                        "succeeds", ["the parser turns odd input into a match (nan, inf, empty)"],
                        ["reject input that does not parse as an answer"])
    problem = _reward_meaning(c) or _malformed_over_losing(c) or _observation_bound(c)
    if problem:
        return problem
    seen = sum(len(e.rewards) for e in episodes)
    return ok(stage, f"{seen} rewards within [{low}, {high}]; success coincides with the top reward and ends the "
              f"episode; {len(edge)} edge inputs handled")


def _acts(episode: Episode) -> str:
    shown = [repr(a[:40]) for a in episode.actions[-2:]]
    return "the action(s) " + ", ".join(shown) if shown else "reset"


def _edge_episodes(c: Candidate) -> list[tuple[Any, Episode]]:
    """One step of every edge input from the start of the first seed."""
    assert c.manifest is not None
    seed = c.config.seeds[0]
    out = []
    for probe in c.clock.items(edge_inputs(answer_template(c), c.manifest.max_action_chars), "edge inputs"):
        episode = Episode(seed=seed, label=f"edge input: {probe.what}")
        env = c.env()
        try:
            obs, info = env.reset(seed=seed)
        except Exception as exc:  # recorded like any episode failure
            episode.error = exc
            c.shared_env = None
            out.append((probe, episode))
            continue
        episode.reset_obs, episode.reset_info = obs, dict(info)
        obs, reward, terminated, truncated, info = env.step(probe.action)
        episode.observations.append(episode.reset_obs)
        episode.steps.append((probe.action, obs, float(reward), terminated, truncated))
        episode.infos.append(info)
        episode.final_info = info
        if info.get("sandbox_error") is not None:
            episode.error = info["sandbox_error"]
            c.shared_env = None
        c.all_episodes.append(episode)
        out.append((probe, episode))
    return out


def _reward_meaning(c: Candidate) -> StageResult | None:
    """The top reward goes with success; failing never earns more than solving the same task; a malformed action
    never earns more than a well-formed wrong one from the same start, over the episode."""
    stage = "reward_range"
    episodes = [e for e in c.all_episodes if e.steps]
    success_steps = [s[2] for e in episodes for s, i in zip(e.steps, e.infos, strict=False) if i.get("success")]
    # a solved seed the reference answered in one step: where the built wrong answers are played
    one_step = next((e for e in c.reference_episodes if e.success and e.error is None and len(e.steps) == 1), None)
    if single_player(c) and success_steps:
        top = max(success_steps)
        assert c.manifest is not None
        low = c.manifest.reward_range[0]
        # where solving pays along the way (a share per item), the episode's total is the verdict, not its last step
        at_end = _paid_at_end([e for e in episodes if e.success])
        memorised = _memorising_episode(c, one_step) if one_step is not None else None
        for e in [*episodes, *([memorised] if memorised is not None else [])]:
            for (action, _, reward, terminated, _), info in zip(e.steps, e.infos, strict=False):
                more = reward > top + 1e-9
                ends_on_top = at_end and terminated and top > low and reward >= top - 1e-9
                if not info.get("success") and (more or ends_on_top):
                    who = f" ({e.label})" if e.label else ""
                    return fail(stage, f"seed {e.seed}: the non-solving action{who} {action[:60]!r} earns {reward:g}, "
                                f"{'more than' if more else 'as much as'} any solving step ({top:g})"
                                + (", and ends the episode" if ends_on_top else ""),
                                ["the reward is inverted or pays for something other than solving (length, "
                                 "attempts, format)"], ["give the top reward exactly when info['success'] is "
                                                        "True"])
        solved = {e.seed: e.total_reward for e in c.reference_episodes if e.success}
        for e in episodes:
            if e.success or e.seed not in solved:
                continue
            more = e.total_reward > solved[e.seed] + 1e-9
            as_much = not at_end and e.finished and solved[e.seed] > low and e.total_reward >= solved[e.seed] - 1e-9
            if more or as_much:
                who = f" ({e.label})" if e.label else ""
                return fail(stage, f"seed {e.seed}: a failing episode{who} earns {e.total_reward:g} in total, "
                            f"{'more than' if more else 'as much as'} solving the same task ({solved[e.seed]:g})",
                            ["rewards accumulate for actions that do not solve the task (spam, repeated tries)"],
                            ["reward solving; do not pay per action or per attempt"])
    by_seed: dict[int, list[tuple[str, float, dict[str, Any]]]] = {}
    for e in episodes:
        if e.error is None or e.infos:
            by_seed.setdefault(e.seed, []).append((e.steps[0][0], e.steps[0][2], e.infos[0]))
    if single_player(c) and one_step is not None and one_step.seed in by_seed:
        wrong = _wrong_in_form(c, one_step)  # the policies played so far may hold no well-formed wrong answer
        if wrong is not None:
            by_seed[one_step.seed].append((wrong.steps[0][0], wrong.steps[0][2], wrong.infos[0]))
    for seed, firsts in by_seed.items():
        malformed = [(a, r) for a, r, i in firsts if i.get("format_error") is not None]
        wrong = [(a, r) for a, r, i in firsts if i.get("format_error") is None and not i.get("success")
                 and i.get("action_is_valid", True) is not False]
        if malformed and wrong:
            bad = max(malformed, key=lambda ar: ar[1])
            worst = min(wrong, key=lambda ar: ar[1])
            if bad[1] > worst[1] + 1e-9:
                problem = _malformed_over_episodes(c, seed, bad[0], worst[0])
                if problem is not None:
                    return problem
    return None


def _paid_at_end(solved: list[Episode]) -> bool:
    """Whether solving pays its whole reward on the step that succeeds (nothing before it): then that step's reward
    is the verdict, and a step ending a failed episode must pay less. Where solving pays along the way (a share per
    item classified), a failed episode's last step may pay as much as a solving one; its total may not."""
    return all(abs(e.total_reward - e.steps[-1][2]) <= 1e-9 for e in solved if e.steps)


def _memorising_episode(c: Candidate, reference: Episode) -> Episode | None:
    """One step of a program that answers only the examples the task shows
    (:func:`~spade_core.validation.mutations.memorising`), on a seed a one-step reference solved with a program;
    None for other tasks."""
    program = program_in(reference.steps[0][0])
    variant = memorising(program, reference.reset_obs) if program is not None else None
    if variant is None:
        return None
    return labelled(c.run(reference.seed, replaying([variant.action]), max_steps=1), variant.what)


def _wrong_in_form(c: Candidate, reference: Episode) -> Episode | None:
    """A well-formed wrong answer on a one-step reference's seed
    (:func:`~spade_core.validation.mutations.wrong_answer`); None when the task takes it as no wrong answer (a
    format error, a success)."""
    wrong = wrong_answer(reference.steps[0][0])
    if wrong is None:
        return None
    episode = labelled(c.run(reference.seed, replaying([wrong]), max_steps=1), "a wrong answer in the answer's form")
    info = episode.infos[0] if episode.infos else {}
    if episode.error is not None or not episode.steps or info.get("format_error") is not None \
            or info.get("success") or info.get("action_is_valid", True) is False:
        return None
    return episode


def _malformed_over_episodes(c: Candidate, seed: int, malformed: str, wrong: str) -> StageResult | None:
    """A malformed first action earned more than a wrong one in a single step; compared over whole episodes (each
    action played every turn to the end), the malformed one must not earn more (a rule such as "three malformed
    moves in a row forfeit" charges it later)."""
    assert c.manifest is not None
    turns = c.manifest.max_turns
    garbage = labelled(c.run(seed, replaying([malformed]), max_steps=turns), "a malformed action every turn")
    tried = labelled(c.run(seed, replaying([wrong]), max_steps=turns), "a wrong action every turn")
    if garbage.error is not None or tried.error is not None or tried.success:
        return None
    if garbage.total_reward > tried.total_reward + 1e-9:
        return fail("reward_range", f"seed {seed}: the malformed action {malformed[:40]!r} played every turn earns "
                    f"{garbage.total_reward:g} over {len(garbage.steps)} steps, more than the well-formed wrong "
                    f"answer {wrong[:40]!r} played every turn ({tried.total_reward:g} over {len(tried.steps)} steps)",
                    ["format errors are rewarded (or wrong answers penalised harder than garbage)"],
                    ["give malformed actions at most what wrong ones earn over an episode"])
    return None


LOSING_MARGIN = 0.1
"""A share of the reward range a malformed move every turn may earn above a lost game (a step cost, a forfeit
priced a little differently from a loss) before it is out-earning losing."""


def _malformed_over_losing(c: Candidate) -> StageResult | None:
    """Single-player games that list their legal moves: a malformed move played every turn (the one the game itself
    answered with ``format_error`` at the start) earns no more over the episode than a game of legal moves that
    is not won (on average over random legal players' games that ended without success, on the same seed), within
    :data:`LOSING_MARGIN` of the range. A game that lets
    invalid replies go on without end pays stalling: the episode runs out at 0 while every legal line against its
    bot loses."""
    assert c.manifest is not None
    refs = [e for e in c.reference_episodes if e.error is None and e.steps]
    if not single_player(c) or not refs or not isinstance(refs[0].reset_info.get(LEGAL_MOVES_KEY), list):
        return None
    seed = refs[0].seed
    malformed = next((e.steps[0][0] for e in c.all_episodes if e.seed == seed and e.infos
                      and e.infos[0].get("format_error") is not None), None)
    if malformed is None:
        return None
    turns = c.manifest.max_turns
    garbage = labelled(c.run(seed, replaying([malformed]), max_steps=turns), "a malformed action every turn")
    legal = random_legal_games(c, seed)
    lost = [e for e in legal if e.error is None and e.steps and e.steps[-1][3] and not e.success]
    if garbage.error is not None or garbage.success or not lost:
        return None
    low, high = c.manifest.reward_range
    mean = sum(e.total_reward for e in lost) / len(lost)
    if garbage.total_reward > mean + LOSING_MARGIN * (high - low) + 1e-9:
        ended = "runs out" if not garbage.steps[-1][3] else "ends"
        return fail("reward_range", f"seed {seed}: the malformed action {malformed[:40]!r} played every turn "
                    f"earns {garbage.total_reward:g} over {len(garbage.steps)} steps (the episode {ended}), more "
                    f"than a lost game of legal moves: the {len(lost)} of {len(legal)} random legal games not won "
                    f"earn {mean:.2f} on average: replying garbage beats playing and losing",
                    ["invalid replies are refused with no end (no forfeit, no cost), so stalling runs the episode "
                     "out at 0 while a lost game pays less"],
                    ["forfeit after a few invalid replies in a row (the loss's reward), or make the episode's end by "
                     "running out of turns pay what a loss pays"])
    return None


def _observation_bound(c: Candidate) -> StageResult | None:
    limit = c.config.max_observation_chars
    for e in c.all_episodes:
        lengths = [len(e.reset_obs), *(len(s[1]) for s in e.steps)]
        if max(lengths) > limit:
            turn = lengths.index(max(lengths))
            return fail("reward_range", f"seed {e.seed}: the observation at turn {turn} is {max(lengths)} "
                        f"characters (more than {limit})", ["the observation grows with the history"],
                        ["show only the current state and the last feedback"])
        if len(lengths) >= 6 and lengths[-1] > 4000 and lengths[-1] > 8 * max(lengths[1], 100):
            return fail("reward_range", f"seed {e.seed}: the observation grows without bound, from "
                        f"{lengths[1]} characters at turn 1 to {lengths[-1]} at turn {len(lengths) - 1}",
                        ["the observation repeats or doubles the history"],
                        ["show only the current state and the last feedback"])
    return None
