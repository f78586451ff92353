"""reasoning-gym generators as SPADE environments, scored by reasoning-gym's own scorers.

Each task is one item of a procedurally generated reasoning-gym dataset (fixed seed, so every run sees the same
items). The model answers inside ``<answer>...</answer>`` tags (reasoning-gym's default system prompt asks for
that); :func:`reasoning_gym.utils.extract_answer` takes the last tagged answer and the dataset's
``score_answer`` scores it in [0, 1]. Success means a full score (some scorers give partial credit, e.g. 0.25 for
a valid but trivial propositional conclusion).

Two variants: single-turn (one answer), and retry (up to ``attempts`` answers; after a wrong one the observation
gives the score as feedback, never the answer). The reward is the score of the last answer.

reasoning-gym is Apache-2.0 licensed (open-thought/reasoning-gym).
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.evaluation.errors import BenchmarkDataError, BenchmarkUnavailableError
from spade_core.evaluation.suite import EvalTask, Suite
from spade_domains.benchmarks.common import trusted_env
from spade_registry.manifest import EnvManifest
from spade_registry.syntax import parse_source
from spade_tools.guard import CallTimeout, guarded_call

DEFAULT_DATASETS = ("basic_arithmetic", "chain_sum", "letter_counting", "simple_equations", "propositional_logic")
DATASET_SEED = 42
"""Fixed generator seed: item ``i`` of a dataset is the same on every machine and for every suite size."""
DEFAULT_PER_DATASET = 50
DEFAULT_ATTEMPTS = 3
FULL_SCORE = 1.0 - 1e-9
INSTALL_HINT = "pip install 'spade-rl[eval]'   (or: pip install reasoning-gym)"
SCORE_TIMEOUT_S = 2.0
"""The most one ``score_answer`` call may take; past it the answer scores 0."""
CODE_EVALUATORS = frozenset({"eval", "exec", "compile", "parse_expr", "sympify", "parse_latex", "__import__",
                             "S", "N", "simplify", "nsimplify", "expand", "factor"})
"""Calls that run text as code (sympy's ``parse_expr``, and ``sympify`` behind the sympy functions that accept a
string, ``eval`` it): a scorer that applies one to the model's answer would run model-written code in this
process. Matched by name, so the check errs on the side of refusing."""


def _rg() -> Any:
    try:
        import reasoning_gym
        import reasoning_gym.utils
    except ImportError as exc:
        raise BenchmarkUnavailableError(f"the reasoning-gym suites need the reasoning-gym package ({exc}); "
                                        f"install it with: {INSTALL_HINT}") from exc
    return reasoning_gym


@functools.lru_cache(maxsize=64)
def dataset(name: str, size: int) -> Any:
    """The reasoning-gym dataset ``name`` with ``size`` items at :data:`DATASET_SEED` (cached)."""
    rg = _rg()
    from reasoning_gym.factory import DATASETS

    if name not in DATASETS:
        close = difflib.get_close_matches(name, list(DATASETS), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise BenchmarkDataError(f"reasoning-gym has no dataset {name!r}{hint}")
    data = rg.create_dataset(name, size=size, seed=DATASET_SEED)
    found = code_evaluation_in_scorer(type(data))
    if found:
        raise BenchmarkDataError(
            f"reasoning-gym dataset {name!r} scores answers with {found}, which runs the model's text as code; "
            "benchmark scorers run in this process, so SPADE refuses it: choose another dataset")
    return data


def code_evaluation_in_scorer(cls: type, depth: int = 3) -> str | None:
    """The code-evaluating call (``eval(...)`` in ``Cls.score_answer``) reachable from ``cls.score_answer``, or None.

    Reads the source of ``score_answer`` and, ``depth`` levels down, of the methods (``self.x()``) and module
    functions it calls; a scorer whose source cannot be read counts as evaluating (it cannot be checked).
    """
    seen: set[object] = set()
    pending: list[tuple[Any, int]] = [(getattr(cls, "score_answer", None), 0)]
    while pending:
        func, level = pending.pop()
        if func is None or func in seen:
            continue
        seen.add(func)
        try:
            tree = parse_source(textwrap.dedent(inspect.getsource(func)))
        except (OSError, TypeError, SyntaxError):
            return f"{getattr(func, '__qualname__', func)!s} (source unavailable)"
        scope = getattr(func, "__globals__", {})
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            target = node.func
            called = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
            if called in CODE_EVALUATORS:
                return f"{called}() in {func.__qualname__}"
            if level < depth:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    pending.append((getattr(cls, called, None), level + 1))
                elif isinstance(target, ast.Name) and inspect.isfunction(scope.get(called)):
                    pending.append((scope[called], level + 1))
    return None


def system_prompt() -> str:
    """reasoning-gym's default system prompt (think, then ``<answer>...</answer>``)."""
    return _rg().utils.SYSTEM_PROMPTS["default"]


def reference_answer(entry: Mapping[str, Any]) -> str:
    """The item's answer, or the generator's example answer where the item has several correct ones."""
    answer = entry.get("answer")
    if answer is None:
        answer = entry.get("metadata", {}).get("example_answer")
    return "" if answer is None else str(answer)


class ReasoningGymEnv:
    """One reasoning-gym item in the SPADE inner-environment format (trusted, in-process)."""

    def __init__(self, name: str, index: int, size: int, attempts: int = 1) -> None:
        self.data = dataset(name, size)
        self.name = name
        self.entry = self.data[index]
        self.attempts = attempts

    def reset(self, rng: Any, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        self.attempt = 0
        self.best = 0.0
        return self.entry["question"], {"dataset": self.name}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        from reasoning_gym.utils import extract_answer

        self.attempt += 1
        answer = extract_answer(action)
        problem = None if answer is not None else "no <answer>...</answer> tags; put only the final answer inside them"
        try:  # bounded time, numbers and decimal/mpmath context, like every call on model text in this process
            score = float(guarded_call(lambda: self.data.score_answer(answer, self.entry), timeout_s=SCORE_TIMEOUT_S))
        except (Exception, CallTimeout):  # a scorer that chokes on odd text, or runs past its budget, scores it 0
            score = 0.0
        score = min(max(score, 0.0), 1.0) if score == score else 0.0  # NaN scores 0
        success = score >= FULL_SCORE
        info = {"success": success, "format_error": problem, "action_is_valid": problem is None, "score": score,
                "attempt": self.attempt}
        if success or self.attempt >= self.attempts:
            return ("Correct." if success else "Incorrect."), score, True, False, info
        shown = "no answer in <answer> tags" if answer is None else f"your answer {answer[:200]!r}"
        feedback = (f"That is not correct ({shown} scored {score:.2f} of 1). You have {self.attempts - self.attempt} "
                    "attempt(s) left: check your reasoning and give the final answer in <answer></answer> tags.")
        return feedback, 0.0, False, False, info

    def privileged_hint(self) -> str:
        return "Work step by step and check the result before answering."

    def reference_action(self) -> str:
        return f"<answer>{reference_answer(self.entry)}</answer>"


def make_env(name: str, index: int, size: int, attempts: int = 1) -> SpadeEnv:
    """A fresh environment for item ``index`` of dataset ``name``."""
    manifest = EnvManifest.from_dict({
        "name": f"RG.{name}.{index}", "domain": "reasoning",
        "description": f"reasoning-gym {name}: answer inside <answer></answer> tags.",
        "reward_range": [0.0, 1.0], "max_turns": attempts, "max_obs_chars": 100_000, "max_action_chars": 100_000,
        "tags": ["benchmark", "reasoning_gym", name], "grounding": "reasoning-gym procedural dataset",
        "extra": {"dataset": name, "index": index, "seed": DATASET_SEED},
    }, source=f"reasoning-gym {name}")
    return trusted_env(manifest, functools.partial(ReasoningGymEnv, name, index, size, attempts), f"rg/{name}/{index}")


def _names(argument: str | None) -> tuple[str, ...]:
    if not argument:
        return DEFAULT_DATASETS
    names = tuple(n.strip() for n in argument.split(",") if n.strip())
    if not names:
        raise BenchmarkDataError(f"no dataset names in {argument!r}; e.g. reasoning-gym:chain_sum,basic_arithmetic")
    for name in names:
        dataset(name, 1)  # fail early, with suggestions, on a misspelt name
    return names


def build_suite(suite_name: str, names: Sequence[str], *, limit: int | None, attempts: int,
                per_dataset: int = DEFAULT_PER_DATASET) -> Suite:
    """Interleave the datasets (item 0 of each, then item 1, ...) so that any ``limit`` covers all of them."""
    per = per_dataset if limit is None else max(1, -(-limit // len(names)))
    tasks = []
    for index in range(per):
        for name in names:
            tasks.append(EvalTask(f"{name}/{index}", functools.partial(make_env, name, index, per, attempts), 0, {},
                                  {"dataset": name, "index": index}))
    return Suite(suite_name, f"reasoning-gym: {', '.join(names)} ({attempts} attempt(s))", tuple(tasks),
                 system_prompt(), max_new_tokens=512, tags=("reasoning",))


def load_single_turn(*, argument: str | None = None, limit: int | None = None, **_: Any) -> Suite:
    names = _names(argument)
    return build_suite("reasoning-gym" + (f":{argument}" if argument else ""), names, limit=limit, attempts=1)


def load_multi_turn(*, argument: str | None = None, limit: int | None = None, attempts: int = DEFAULT_ATTEMPTS,
                    **_: Any) -> Suite:
    names = _names(argument)
    return build_suite("reasoning-gym-retry" + (f":{argument}" if argument else ""), names, limit=limit,
                       attempts=attempts)
