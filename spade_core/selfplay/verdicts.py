"""What happened to each role in an iteration, and why, in one line each: what the console prints after a run,
what ``metrics.jsonl`` keeps (``IterationMetrics.summary``) and what the report shows at the top.

A run on a model too small for a role should say so instead of leaving a reader to infer it from zeros: "designer:
0/2 candidates extracted - no completion held a module; a model this size (135M parameters) does not write
modules: set designer.model to a capable model".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from spade_core.selfplay.metrics import IterationMetrics

EXTRACTION = "extraction"
SMALL_MODEL_PARAMETERS = 1_000_000_000
"""Below this a policy is not expected to write whole environment modules (measured: SmolLM2-135M writes none)."""


@dataclass(frozen=True)
class RoleContext:
    """What the verdicts need to know about the run besides the metrics."""

    designer_enabled: bool = True
    designer_parameters: int | None = None  # the designing model's size, when known
    agent_parameters: int | None = None


def parameter_count(backend: object) -> int | None:
    """Parameters of an in-process model backend (``backend.model``); ``None`` for a remote one."""
    model = getattr(backend, "model", None)
    parameters = getattr(model, "parameters", None)
    if not callable(parameters):
        return None
    return int(sum(p.numel() for p in parameters()))


def _size(parameters: int | None) -> str:
    if parameters is None:
        return "a model this size"
    if parameters >= 1_000_000_000:
        return f"a model this size ({parameters / 1e9:.1f}B parameters)"
    return f"a model this size ({parameters / 1e6:.0f}M parameters)" if parameters >= 1_000_000 else \
        f"a model this size ({parameters / 1e3:.0f}k parameters)"


def _small(parameters: int | None) -> bool:
    return parameters is not None and parameters < SMALL_MODEL_PARAMETERS


def designer_line(m: IterationMetrics, ctx: RoleContext) -> str:
    d = m.designer
    if not ctx.designer_enabled:
        return "designer: off (designer.enabled=false): the agent trains on the fixed pool"
    if d.candidates == 0:
        failed = [e for e in m.errors if e.startswith("designer")]
        return f"designer: no candidates this iteration ({failed[0] if failed else 'none requested'})"
    extracted = d.candidates - d.outcomes.get(EXTRACTION, 0)
    if extracted == 0:
        line = f"designer: 0/{d.candidates} candidates extracted - no completion held a module"
        if _small(ctx.designer_parameters):
            line += (f"; {_size(ctx.designer_parameters)} does not write modules: set designer.model to a capable "
                     "model (e.g. openai:<model>@<url> or a local 7B+ instruct model)")
        return line
    if d.accepted == 0:
        stages = Counter(r.stage or r.status for r in d.designs if r.verdict != "accepted")
        top = ", ".join(f"{stage} ({n})" for stage, n in stages.most_common(3))
        line = f"designer: {extracted}/{d.candidates} extracted, 0 accepted - rejected at {top}"
        if _small(ctx.designer_parameters):
            line += f"; {_size(ctx.designer_parameters)} rarely passes validation: set designer.model to a capable model"
        return line
    frozen = " (frozen designer.model: not trained)" if d.frozen else ""
    return f"designer: {d.accepted}/{d.candidates} accepted ({', '.join(d.accepted_ids)}){frozen}"


def agent_line(m: IterationMetrics, ctx: RoleContext) -> str:
    a = m.agent
    if a.episodes == 0:
        why = next((e for e in m.errors if e.startswith("agent")), "no playable environment")
        return f"agent: no episodes - {why.removeprefix('agent: ')}; check agent.domains and agent.max_env_turns"
    head = (f"agent: {a.episodes} episodes on {len(a.envs)} environment(s), success {a.success_hinted:.0%} with the "
            f"hint and {a.success_unhinted:.0%} without")
    if a.time_limited or a.not_started:
        head += (f" ({a.time_limited} ended at the phase's deadline, {a.not_started} not started: censored, "
                 f"{a.censored_pairs} seed(s) left out)")
    if a.success_hinted == 0 and a.success_unhinted == 0:
        why = "no success at all, so every regret is 0 and the update has no signal"
        if _small(ctx.agent_parameters):
            why += f" ({_size(ctx.agent_parameters)} does not solve these tasks: use a stronger model.spec)"
        return f"{head} - {why}"
    return f"{head}; mean regret {m.regret.mean:+.3f}"


def trainer_line(m: IterationMetrics) -> str:
    if m.partial and m.train.agent is None and m.train.designer is None:
        return f"trainer: not updated - the run was stopped ({m.stopped_by}) before the update"
    parts = []
    for role in ("agent", "designer"):
        update = getattr(m.train, role)
        if update is not None:
            parts.append(f"{role} {update.trajectories} trajectories (loss {update.loss if update.loss is not None else '-'})")
        elif role == "designer" and m.train.designer_update:
            parts.append(f"designer not updated: {m.train.designer_update}")
        else:
            parts.append(f"{role} not updated")
    failed = [e for e in m.errors if e.startswith("update")]
    return "trainer: " + "; ".join(parts) + (f" - {failed[0]}" if failed else "")


def role_verdicts(m: IterationMetrics, ctx: RoleContext) -> list[str]:
    """One line per role: designer, agent, trainer."""
    return [designer_line(m, ctx), agent_line(m, ctx), trainer_line(m)]
