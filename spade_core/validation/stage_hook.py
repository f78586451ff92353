"""The stages in effect: the built-in list plus the stages plugins add through ``spade_validation_stages``.

Added stages are checked when the list is built, before any candidate runs: each names a budget, needs only stages
that exist (and no cycle), reads only what a stage it needs (directly or through others) exports, and uses a new
name. They run after the built-in stages and before the ``needs_all`` ones (the probe model's), ordered so that
every stage comes after what it needs. A plugin's mistake stops validation with a :class:`StageListError` naming the
plugin, the stage and the fix; it never silently weakens or loosens the gate.
"""

from __future__ import annotations

import difflib
import math
import threading
from collections.abc import Sequence
from dataclasses import fields

from spade_core import linear_re
from spade_core.errors import PluginError, StageListError
from spade_core.plugins.contributions import ValidationStageSpec, load_object
from spade_core.plugins.manager import PluginRegistry, get_plugins
from spade_core.validation.candidate import CANDIDATE_INPUTS, CANDIDATE_SHARED, Candidate
from spade_core.validation.config import ValidationConfig, check_stage_budgets
from spade_core.validation.stage_list import STAGES, Stage
from spade_registry.records import Status

HOOK = "spade_validation_stages"
NAME_FORMAT = linear_re.compile(r"[a-z][a-z0-9_]{0,47}")
"""A stage name: it keys reports, budgets (``ValidationConfig.stage_budget_s``) and the designer prompt."""
BUDGET_RULE = "budget_s must be a positive number of seconds"
REJECTIONS: tuple[Status, ...] = (Status.FAILED, Status.TRIVIAL, Status.IMPOSSIBLE, Status.DUPLICATE)
"""The record statuses a stage's failure may give."""

_lock = threading.Lock()
_cache: tuple[tuple[PluginRegistry, frozenset[int], tuple[object, ...]], tuple[Stage, ...]] | None = None
"""The plugin registry and plugins the list was built from (the objects are held, so no other takes their ids)."""


def stages_in_effect(registry: PluginRegistry | None = None) -> tuple[Stage, ...]:
    """The built-in stages with every plugin-added one in place, checked (built again only when the registry or its
    plugins change)."""
    global _cache
    registry = registry if registry is not None else get_plugins()
    plugins = tuple(registry.pm.get_plugins())
    key = (registry, frozenset(map(id, plugins)), plugins)
    with _lock:
        if _cache is not None and _cache[0][0] is registry and _cache[0][1] == key[1]:
            return _cache[1]
    added = [stage_from_spec(plugin, spec) for plugin, spec in added_specs(registry)]
    stages = arrange(STAGES, added)
    check_stage_list(stages)
    with _lock:
        _cache = (key, stages)
    return stages


def added_specs(registry: PluginRegistry) -> list[tuple[str, ValidationStageSpec]]:
    """``(plugin, spec)`` for every stage plugins add; anything else a hook returns is an error naming the plugin."""
    out: list[tuple[str, ValidationStageSpec]] = []
    for plugin, answer in registry.collect(HOOK):
        items = answer if isinstance(answer, list | tuple) else [answer]
        for spec in items:
            if not isinstance(spec, ValidationStageSpec):
                raise StageListError(f"plugin {plugin!r}: {HOOK} returned {type(spec).__name__}, not a "
                                     "ValidationStageSpec; return a list of ValidationStageSpec(...)")
            out.append((plugin, spec))
    return out


def stage_from_spec(plugin: str, spec: ValidationStageSpec) -> Stage:
    """The :class:`Stage` a plugin's spec declares, or an error saying what is missing and how to add it."""
    where = _where(spec.name, plugin)
    if not isinstance(spec.name, str) or not NAME_FORMAT.fullmatch(spec.name):
        raise StageListError(f"{where}: the name must match {NAME_FORMAT.pattern} (lower case, digits, _)")
    budget = spec.budget_s
    if budget is None:
        raise StageListError(f"{where} declares no budget_s: give it ValidationStageSpec(budget_s=SECONDS), the "
                             "wall-clock time it may take on one candidate (the built-in play-based stages take "
                             "60 s, the static ones 10 s)")
    if isinstance(budget, bool) or not isinstance(budget, int | float):
        raise StageListError(f"{where}: {BUDGET_RULE}, got {budget!r}")  # its range: check_stage_list
    try:
        rejects_as = Status(spec.rejects_as)
    except ValueError:
        rejects_as = None
    if rejects_as not in REJECTIONS:
        raise StageListError(f"{where}: rejects_as {spec.rejects_as!r} is not one of "
                             f"{[s.value for s in REJECTIONS]}")
    try:
        check = load_object(spec.check)
    except PluginError as exc:
        raise StageListError(f"{where}: its check cannot be loaded: {exc}") from exc
    if not callable(check):
        raise StageListError(f"{where}: check {spec.check!r} is {type(check).__name__}, not a function")
    return Stage(spec.name, check, off_driver=True, runs_code=bool(spec.runs_code), budget_s=float(budget),
                 rejects_as=rejects_as, exports=tuple(spec.exports), reads=tuple(spec.reads), rule=spec.rule,
                 needs=tuple(spec.needs), domains=tuple(spec.domains), origin=plugin)


def arrange(builtin: Sequence[Stage], added: Sequence[Stage]) -> tuple[Stage, ...]:
    """The built-in stages up to the first ``needs_all`` one, then the added stages (each after every added stage it
    needs, otherwise in the order they came), then the rest."""
    cut = next((i for i, stage in enumerate(builtin) if stage.needs_all), len(builtin))
    known = {stage.name for stage in builtin}
    ordered: list[Stage] = []
    placed: set[str] = set()
    waiting = list(added)
    while waiting:
        ready = [s for s in waiting if all(n in known or n in placed for n in s.needs)]
        if not ready:
            raise StageListError(_unplaceable(waiting, known, added))
        ordered.append(ready[0])
        placed.add(ready[0].name)
        waiting.remove(ready[0])
    return (*builtin[:cut], *ordered, *builtin[cut:])


def _unplaceable(waiting: Sequence[Stage], known: set[str], added: Sequence[Stage]) -> str:
    """Why no waiting stage can go next: a need that names no stage, or a cycle among the added ones."""
    every = known | {s.name for s in added}
    for stage in waiting:
        for need in stage.needs:
            if need not in every:
                close = difflib.get_close_matches(need, sorted(every), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                return (f"{_where(stage.name, stage.origin)} needs {need!r}, which is no stage{hint} (stages: "
                        f"{', '.join(sorted(every))})")
    names = ", ".join(repr(s.name) for s in waiting)
    return f"validation stages {names} need each other in a cycle: remove one of the needs"


def check_stage_list(stages: Sequence[Stage]) -> None:
    """Every stage has a unique name and a budget, needs only earlier stages, and reads only what it starts with or
    what a stage it needs (directly or through others) exports; raises :class:`StageListError` naming the first
    stage that does not."""
    attributes = {f.name for f in fields(Candidate)}
    seen: dict[str, Stage] = {}
    for stage in stages:
        where = _where(stage.name, stage.origin)
        if stage.name in seen:
            taken = seen[stage.name]
            raise StageListError(f"{where}: the name is taken by {_where(taken.name, taken.origin)}; choose another")
        if not (math.isfinite(stage.budget_s) and stage.budget_s > 0):
            raise StageListError(f"{where}: {BUDGET_RULE}, got {stage.budget_s!r}")
        for need in stage.needs:
            if need not in seen:
                raise StageListError(f"{where} needs {need!r}, which does not run before it")
        for name in (*stage.reads, *stage.exports):
            if name not in attributes:
                raise StageListError(f"{where} declares {name!r}, which is no Candidate attribute (they are: "
                                     f"{', '.join(sorted(attributes))})")
        provided = CANDIDATE_INPUTS | CANDIDATE_SHARED | set(stage.exports) | _exported_by_needs(stage, seen)
        missing = [name for name in stage.reads if name not in provided]
        if missing:
            makers = sorted({s.name for s in seen.values() if set(s.exports) & set(missing)})
            fix = (f"add one of {makers} to its needs" if makers else "no stage before it exports it: read only "
                   f"what its needs export, or what every candidate starts with ({', '.join(sorted(CANDIDATE_INPUTS))})")
            raise StageListError(f"{where} reads {missing}, which no stage it needs exports: {fix}")
        seen[stage.name] = stage


def _exported_by_needs(stage: Stage, earlier: dict[str, Stage]) -> set[str]:
    """What the stages ``stage`` needs, directly or through others, export (``needs_all``: every earlier stage)."""
    todo = list(earlier) if stage.needs_all else list(stage.needs)
    exported: set[str] = set()
    done: set[str] = set()
    while todo:
        name = todo.pop()
        if name in done or name not in earlier:
            continue
        done.add(name)
        exported |= set(earlier[name].exports)
        todo.extend(earlier[name].needs)
    return exported


def _where(name: str, plugin: str) -> str:
    """How an error names a stage: ``validation stage 'x'``, with ``of plugin 'p'`` for an added one."""
    return f"validation stage {name!r}" + (f" of plugin {plugin!r}" if plugin else "")


def check_budget_overrides(config: ValidationConfig, stages: Sequence[Stage]) -> None:
    """``ValidationConfig.stage_budget_s`` names only stages in effect (a misspelt name would change nothing)."""
    try:
        check_stage_budgets(config.stage_budget_s, [stage.name for stage in stages])
    except ValueError as exc:
        raise StageListError(str(exc)) from None


def stage_names() -> list[str]:
    """The names of the stages in effect, in order (what ``stage_budget_s`` may name)."""
    return [stage.name for stage in stages_in_effect()]


def reset_stage_cache() -> None:
    """Forget the built list (the next :func:`stages_in_effect` rebuilds it from the plugins)."""
    global _cache
    with _lock:
        _cache = None
