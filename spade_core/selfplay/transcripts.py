"""The example episodes a self-play report shows: per iteration the best and the worst environment by regret, each
with one hinted and one unhinted episode, rendered as text from the trajectory's exact tokens."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from spade_core.rollout.trajectory import Trajectory
from spade_core.selfplay.metrics import EnvExample, EpisodeRecord
from spade_core.training.regret import RegretEstimate

MAX_SEGMENT_CHARS = 4000
"""A context or action longer than this is cut in the transcript (the middle is left out and says how much)."""

Decode = Callable[[Sequence[int]], str]
WriteText = Callable[[str, str], str]
"""``write(name, text) -> path relative to the run directory``."""


def _cut(text: str, limit: int = MAX_SEGMENT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters left out ...]\n{text[-half:]}"


def render_transcript(trajectory: Trajectory, decode: Decode | None) -> str:
    """The episode as alternating ``[context]`` (what the agent saw before each turn) and ``[action]`` blocks."""
    lines = [f"environment: {trajectory.env_id}", f"episode: {trajectory.episode_id}",
             f"hinted: {trajectory.hinted}", f"seed: {trajectory.seed}", f"finish: {trajectory.finish}"]
    if trajectory.error:
        lines.append(f"error: {trajectory.error}")
    for n, turn in enumerate(trajectory.turns):
        lines.append("")
        if decode is not None:
            context = decode(trajectory.token_ids[turn.env_start:turn.gen_start])
            lines += [f"[context {n}]", _cut(context)]
        lines += [f"[action {n}]", _cut(turn.action)]
        if turn.format_error:
            lines.append(f"[format error] {_cut(turn.format_error)}")
    return "\n".join(lines) + "\n"


def episode_record(trajectory: Trajectory, transcript_file: str | None) -> EpisodeRecord:
    return EpisodeRecord(
        episode_id=trajectory.episode_id, hinted=trajectory.hinted, seed=trajectory.seed,
        success=bool(trajectory.success), reward=float(trajectory.reward), finish=trajectory.finish,
        turn_rewards=[float(turn.reward) for turn in trajectory.turns], transcript_file=transcript_file,
    )


def _pick(trajectories: Sequence[Trajectory], env_id: str, hinted: bool) -> Trajectory | None:
    """One seat-0 episode of ``env_id``: a successful one if any (it shows what works), else the first."""
    mine = [t for t in trajectories if t.env_id == env_id and t.seat == 0 and t.hinted == hinted]
    return next((t for t in mine if t.success), mine[0] if mine else None)


def pick_examples(trajectories: Sequence[Trajectory], regret: Mapping[str, RegretEstimate], *,
                  decode: Decode | None, write: WriteText) -> list[EnvExample]:
    """The best and the worst environment by regret (one, when only one was estimated), each with one hinted and
    one unhinted episode whose transcripts ``write`` stores."""
    if not regret:
        return []
    ranked = sorted(regret, key=lambda env_id: (regret[env_id].regret, env_id))
    chosen = [("best", ranked[-1])] + ([("worst", ranked[0])] if len(ranked) > 1 else [])
    examples = []
    for rank, env_id in chosen:
        example = EnvExample(rank=rank, env_id=env_id, regret=regret[env_id].regret)
        for hinted in (True, False):
            trajectory = _pick(trajectories, env_id, hinted)
            if trajectory is None:
                continue
            path = write(f"{rank}-{'hinted' if hinted else 'unhinted'}-{env_id}",
                         render_transcript(trajectory, decode))
            record = episode_record(trajectory, path)
            if hinted:
                example.hinted = record
            else:
                example.unhinted = record
        examples.append(example)
    return examples
