"""A self-play run of seconds on the tiny model: the corpus and ``--set`` overrides the self-play, Ray and
data-parallel tests share. ``setup`` maps ``root`` (a folder), ``model`` (a tiny model dir), ``corpus`` (JSONL)."""

from __future__ import annotations

import json
from pathlib import Path


def write_counting_corpus(path: Path) -> Path:
    """Six short documents, one JSON object per line."""
    path.write_text("\n".join(json.dumps({"id": f"d{i}", "title": f"Topic {i}", "text": f"Counting to {i} in steps."})
                              for i in range(6)) + "\n")
    return path


def short_run_settings(setup: dict[str, Path]) -> list[str]:
    """Overrides that keep one iteration to a few seconds (model, corpus, sizes; no run dir or store)."""
    return [
        f"model.spec={setup['model']}", f"designer.corpus=jsonl:{setup['corpus']}", "memory.embedder=hashing",
        "designer.candidates_per_iteration=1", "designer.max_new_tokens=16", "designer.max_repairs=0",
        "designer.validation_seeds=3", "designer.worked_example=false", "agent.envs_per_iteration=2", "agent.seeds_per_env=2",
        "agent.max_new_tokens=6", "agent.domains=[math]", "agent.max_env_turns=3", "train.learning_rate=0.001",
        "train.max_completion_tokens=64",
    ]


def overrides(setup: dict[str, Path], name: str, iterations: int = 3) -> list[str]:
    """:func:`short_run_settings` plus a run directory and a store of its own under ``name``."""
    return [f"run_dir={setup['root'] / name}", f"store={setup['root'] / (name + '.sqlite3')}",
            f"iterations={iterations}", *short_run_settings(setup)]
