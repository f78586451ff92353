"""BFCL v4 multi-turn data from the ``bfcl-eval`` package: the tasks of each category (user turns, initial API
state, ground-truth call sequences) and the function docs of the API classes they involve.

bfcl-eval is Apache-2.0 licensed (Berkeley Function Calling Leaderboard, ShishirPatil/gorilla).
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from spade_core.evaluation.errors import BenchmarkDataError, BenchmarkUnavailableError

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
VERSION_PREFIX = "BFCL_v4"
INSTALL_HINT = "pip install 'spade-rl[eval]' && pip install --no-deps bfcl-eval"
PYTHON_SYNTAX_HINT = " Note that the provided function is in Python 3 syntax."
"""BFCL appends this to every function description (``add_language_specific_hint_to_function_doc``)."""


def require_bfcl() -> Any:
    try:
        return importlib.import_module("bfcl_eval.constants.executable_backend_config")
    except ImportError as exc:
        raise BenchmarkUnavailableError(
            f"the BFCL suites need the bfcl-eval package ({exc}); install it with: {INSTALL_HINT}"
        ) from exc


def _data_file(*parts: str) -> Any:
    require_bfcl()
    path = files("bfcl_eval") / "data"
    for part in parts:
        path = path / part
    return path


def _read_jsonl(path: Any) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkDataError(f"cannot read BFCL data file {path}: {exc}; reinstall bfcl-eval") from exc
    return [json.loads(line) for line in text.splitlines() if line.strip()]

@dataclass(frozen=True)
class BfclEntry:
    """One multi-turn task: BFCL's raw entry, its ground truth, and its function docs split by availability."""

    id: str
    category: str
    raw: Mapping[str, Any]
    ground_truth: tuple[tuple[str, ...], ...]
    functions: tuple[Mapping[str, Any], ...]
    added_functions: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return len(self.raw["question"])

    @property
    def involved_classes(self) -> tuple[str, ...]:
        return tuple(self.raw["involved_classes"])

    @property
    def long_context(self) -> bool:
        return self.category == "long_context"


@functools.lru_cache(maxsize=32)
def _class_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    mapping = importlib.import_module("bfcl_eval.constants.executable_backend_config").MULTI_TURN_FUNC_DOC_FILE_MAPPING
    docs = _read_jsonl(_data_file("multi_turn_func_doc", mapping[class_name]))
    for doc in docs:
        doc["description"] = doc.get("description", "") + PYTHON_SYNTAX_HINT
    return tuple(docs)


@functools.lru_cache(maxsize=8)
def load_entries(category: str) -> tuple[BfclEntry, ...]:
    """Every task of one multi-turn category, in BFCL's order, with ground truth and docs (cached)."""
    if category not in CATEGORIES:
        raise BenchmarkDataError(
            f"unknown BFCL multi-turn category {category!r}; choose one of {', '.join(CATEGORIES)}"
        )
    file_name = f"{VERSION_PREFIX}_multi_turn_{category}.json"
    questions = _read_jsonl(_data_file(file_name))
    answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(_data_file("possible_answer", file_name))}
    entries = []
    for raw in questions:
        if raw["id"] not in answers:
            raise BenchmarkDataError(f"BFCL task {raw['id']} has no ground truth in possible_answer/{file_name}")
        docs = [copy.deepcopy(d) for cls in raw["involved_classes"] for d in _class_docs(cls)]
        added: dict[int, tuple[Mapping[str, Any], ...]] = {}
        for turn, names in raw.get("missed_function", {}).items():
            held = []
            for name in names:
                for i, doc in enumerate(docs):
                    if doc["name"] == name:
                        held.append(docs.pop(i))
                        break
            added[int(turn)] = tuple(held)
        ground_truth = tuple(tuple(turn) for turn in answers[raw["id"]])
        if len(ground_truth) != len(raw["question"]):
            raise BenchmarkDataError(f"BFCL task {raw['id']}: {len(raw['question'])} user turns but "
                                     f"{len(ground_truth)} ground-truth turns")
        entries.append(BfclEntry(raw["id"], category, raw, ground_truth, tuple(docs), added))
    return tuple(entries)


def get_entry(task_id: str) -> BfclEntry:
    """The task with this BFCL id (``multi_turn_base_12``)."""
    for category in sorted(CATEGORIES, key=len, reverse=True):
        if task_id.startswith(f"multi_turn_{category}_"):
            for entry in load_entries(category):
                if entry.id == task_id:
                    return entry
    raise BenchmarkDataError(f"no BFCL multi-turn task with id {task_id!r}")
