"""Local JSONL math benchmarks (GSM8K, MATH, ... exported by the user) as single-turn SPADE environments.

One JSON object per line with a question and an answer. Accepted keys: question | problem | prompt | input |
query, and answer | final_answer | expected_answer | target | solution | output (first present wins); an ``id``
names the task. The reference answer is taken from the answer text the way these datasets write it: after the
last ``####`` (GSM8K), else the last ``\\boxed{...}`` (MATH solutions), else the whole text.

The model's reply is read by the math domain's :func:`~spade_domains.math.verify.extract_answer` (``\\boxed{}``,
else an ``Answer: ...`` line, else a bare number) and compared with
:func:`~spade_domains.math.verify.answers_match` (exact, numeric and symbolic equivalence).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.evaluation.errors import BenchmarkDataError
from spade_core.evaluation.suite import EvalTask, Suite
from spade_domains.benchmarks.common import trusted_env
from spade_domains.math.verify import answers_match, extract_answer
from spade_registry.manifest import EnvManifest

QUESTION_KEYS = ("question", "problem", "prompt", "input", "query")
ANSWER_KEYS = ("answer", "final_answer", "expected_answer", "target", "solution", "output")
SYSTEM_PROMPT = (
    "Solve the math problem. Reason step by step, then give the final answer as \\boxed{ANSWER} on the last line."
)


def reference_answer(text: str) -> str:
    """The final answer inside a dataset's answer text (GSM8K ``#### 72``, MATH ``\\boxed{72}``, or plain)."""
    text = str(text)
    if "####" in text:
        return text.rsplit("####", 1)[1].strip()
    if "\\boxed" in text or "\\fbox" in text:
        boxed = extract_answer(text)
        if boxed:
            return boxed
    return text.strip()


def read_items(path: str) -> tuple[tuple[str, str, str], ...]:
    """``(task id, question, reference answer)`` for every line of a JSONL file; errors name the line."""
    file = Path(path)
    if not file.is_file():
        raise BenchmarkDataError(f"JSONL benchmark {path!r} does not exist; pass --suite jsonl:<path to a .jsonl file>")
    items = []
    seen: set[str] = set()
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BenchmarkDataError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, Mapping):
                raise BenchmarkDataError(f"{path}:{number}: each line must be a JSON object")
            question = next((row[k] for k in QUESTION_KEYS if isinstance(row.get(k), str) and row[k].strip()), None)
            answer = next((row[k] for k in ANSWER_KEYS if row.get(k) is not None and str(row[k]).strip()), None)
            if question is None or answer is None:
                raise BenchmarkDataError(
                    f"{path}:{number}: needs a question ({' | '.join(QUESTION_KEYS)}) and an answer "
                    f"({' | '.join(ANSWER_KEYS)}); found keys {sorted(row)}")
            task_id = str(row.get("id", f"{file.stem}/{number}"))
            if task_id in seen:
                raise BenchmarkDataError(f"{path}:{number}: duplicate id {task_id!r}")
            seen.add(task_id)
            items.append((task_id, question, reference_answer(answer)))
    if not items:
        raise BenchmarkDataError(f"{path} holds no questions")
    return tuple(items)


class MathAnswerEnv:
    """One question; the reply's final answer must match the reference (single turn)."""

    def __init__(self, question: str, answer: str) -> None:
        self.question = question
        self.answer = answer

    def reset(self, rng: Any, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return self.question, {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        given = extract_answer(action)
        if given is None:
            info = {"success": False, "format_error": "no final answer found; end with \\boxed{ANSWER}",
                    "action_is_valid": False, "given": None}
            return "No final answer found.", 0.0, True, False, info
        success = answers_match(given, self.answer)
        info = {"success": success, "format_error": None, "action_is_valid": True, "given": given[:200]}
        return ("Correct." if success else "Incorrect."), 1.0 if success else 0.0, True, False, info

    def privileged_hint(self) -> str:
        return "Write out every intermediate quantity before the final answer."

    def reference_action(self) -> str:
        return f"\\boxed{{{self.answer}}}"


def make_env(task_id: str, question: str, answer: str) -> SpadeEnv:
    manifest = EnvManifest.from_dict({
        "name": "JSONL.math", "domain": "math", "description": "A math question from a local benchmark file.",
        "reward_range": [0.0, 1.0], "max_turns": 1, "max_obs_chars": 200_000, "max_action_chars": 100_000,
        "tags": ["benchmark", "jsonl"], "extra": {"task_id": task_id},
    }, source=task_id)
    return trusted_env(manifest, functools.partial(MathAnswerEnv, question, answer), f"jsonl/{task_id}")


def load_jsonl_suite(*, argument: str | None = None, limit: int | None = None, **_: Any) -> Suite:
    """The suite of one JSONL file (``--suite jsonl:<path>``)."""
    if not argument:
        raise BenchmarkDataError("the jsonl suite needs a file: --suite jsonl:<path to a .jsonl file>")
    path = str(Path(argument).expanduser().resolve())
    items = read_items(path)
    if limit is not None:
        items = items[:limit]
    tasks = tuple(EvalTask(tid, functools.partial(make_env, tid, q, a), 0, {}, {}) for tid, q, a in items)
    return Suite(f"jsonl:{Path(argument).stem}", f"local JSONL benchmark {argument} ({len(tasks)} questions)", tasks,
                 SYSTEM_PROMPT, max_new_tokens=512, tags=("math",))
