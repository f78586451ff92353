"""Evaluation suites: named collections of benchmark tasks, each task a SPADE environment.

A plugin contributes :class:`EvalSuiteSpec` s (cheap metadata plus a lazily imported loader); ``load()`` builds a
:class:`Suite` whose tasks make fresh :class:`~spade_core.contract.env.SpadeEnv` s. Suites live outside the
registry store: benchmark tasks are held out from training, never designer output.

A suite is named on the command line as ``NAME`` or ``NAME:ARGUMENT`` (``jsonl:data/gsm8k.jsonl``,
``reasoning-gym:chain_sum``); the argument goes to the loader.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym

from spade_core.evaluation.errors import BenchmarkUnavailableError, EvaluationError, SuiteNotFoundError
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import EvalSuiteSpec, load_object

SUITE_HOOK = "spade_eval_suites"
"""The hook plugins implement: ``spade_eval_suites() -> list[EvalSuiteSpec]`` (see :func:`suite_specs`)."""

DEFAULT_SYSTEM_PROMPT = "You are solving a benchmark task. {description}"
"""``{description}`` is replaced by the task environment's manifest description."""


@dataclass(frozen=True)
class EvalTask:
    """One benchmark task: a factory for a fresh environment and how to reset it."""

    task_id: str
    make_env: Callable[[], gym.Env]
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its tasks in a fixed order and how a model should be prompted for them.

    ``system_prompt`` may contain ``{description}`` (the environment manifest's description).
    ``max_new_tokens`` is the per-turn generation budget the suite was designed for. ``batch_size`` is the
    preferred number of sequences per forward pass for in-process backends (None: the backend's own): long prompts
    (BFCL's ~4k-token tool docs) decode several times faster unpadded, one at a time, on a CPU.
    """

    name: str
    description: str
    tasks: tuple[EvalTask, ...]
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    max_new_tokens: int = 256
    tags: tuple[str, ...] = ()
    batch_size: int | None = None

    def __post_init__(self) -> None:
        ids = [t.task_id for t in self.tasks]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})[:3]
            raise EvaluationError(f"suite {self.name!r} has duplicate task ids {dup}; task ids must be unique")

    def limited(self, limit: int | None) -> Suite:
        """The first ``limit`` tasks (all when ``limit`` is None)."""
        if limit is None:
            return self
        if limit < 1:
            raise EvaluationError(f"limit must be >= 1, got {limit}")
        return replace(self, tasks=self.tasks[:limit])


def load_spec(spec: EvalSuiteSpec, argument: str | None = None, *, limit: int | None = None,
              **options: Any) -> Suite:
    """Build ``spec``'s suite (its first ``limit`` tasks); raise :class:`BenchmarkUnavailableError` if deps are
    missing."""
    if argument is not None and not spec.argument:
        raise EvaluationError(f"suite {spec.name!r} takes no argument; use --suite {spec.name}")
    if argument is None and spec.argument_required:
        raise EvaluationError(f"suite {spec.name!r} needs an argument: --suite {spec.name}:<{spec.argument}>")
    missing = spec.missing()
    if missing:
        hint = f"; install it with: {spec.install_hint}" if spec.install_hint else ""
        raise BenchmarkUnavailableError(
            f"suite {spec.name!r} needs {', '.join(missing)}, which is not installed{hint}"
        )
    suite = load_object(spec.loader)(argument=argument, limit=limit, **options)
    if not isinstance(suite, Suite):
        raise EvaluationError(f"the loader {spec.loader} of suite {spec.name!r} returned "
                              f"{type(suite).__name__}, not a Suite")
    return suite.limited(limit)


def split_suite_name(text: str) -> tuple[str, str | None]:
    """``"jsonl:data/x.jsonl"`` -> ``("jsonl", "data/x.jsonl")``; ``"bfcl-multi-turn-base"`` -> (name, None)."""
    name, sep, argument = text.partition(":")
    name = name.strip()
    if not name:
        raise EvaluationError(f"empty suite name in {text!r}; use NAME or NAME:ARGUMENT")
    return name, (argument if sep else None)


def _specs_from(results: Iterable[Any], source: str, out: dict[str, EvalSuiteSpec]) -> None:
    for spec in results:
        if not isinstance(spec, EvalSuiteSpec):
            raise EvaluationError(f"{source} returned {type(spec).__name__} from {SUITE_HOOK}; return EvalSuiteSpec")
        if spec.name in out and out[spec.name] == spec:
            continue  # the same plugin reached twice (entry point and explicit module)
        if spec.name in out:
            raise EvaluationError(f"two plugins provide an evaluation suite named {spec.name!r} (one is {source})")
        out[spec.name] = spec


def suite_specs(registry: Any | None = None, *, modules: Iterable[Any] = ()) -> dict[str, EvalSuiteSpec]:
    """Every evaluation suite the installed plugins provide (``spade_eval_suites`` hook), by name.

    ``modules`` adds plugin modules or objects explicitly (tests, scripts).
    """
    out: dict[str, EvalSuiteSpec] = {}
    registry = registry or get_plugins()
    for plugin_name, result in registry.collect(SUITE_HOOK):
        _specs_from(result, f"plugin {plugin_name!r}", out)
    for plugin in modules:
        hook = getattr(plugin, SUITE_HOOK, None)
        if callable(hook):
            _specs_from(hook(), f"plugin {getattr(plugin, '__name__', plugin)!r}", out)
    return out


def find_suite(name: str, specs: Mapping[str, EvalSuiteSpec] | None = None) -> EvalSuiteSpec:
    """The spec named ``name`` (without its ``:ARGUMENT``); :class:`SuiteNotFoundError` lists the known names."""
    specs = suite_specs() if specs is None else specs
    if name in specs:
        return specs[name]
    close = difflib.get_close_matches(name, list(specs), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    known = ", ".join(sorted(specs)) or "none (is the benchmarks plugin installed?)"
    raise SuiteNotFoundError(f"no evaluation suite named {name!r}{hint} (known: {known})")


def load_suite(text: str, *, limit: int | None = None, specs: Mapping[str, EvalSuiteSpec] | None = None,
               **options: Any) -> Suite:
    """Load ``NAME`` or ``NAME:ARGUMENT`` (its first ``limit`` tasks)."""
    name, argument = split_suite_name(text)
    return load_spec(find_suite(name, specs), argument, limit=limit, **options)
