"""Repairs are pipelined with a served designer: a candidate's repair is requested as soon as its own validation
fails, while another candidate's first request is still in flight; a slow answer holds up no other candidate."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from canned_openai_server import CannedServer

from spade_core.corpora import open_corpus
from spade_core.designer.loop import DesignConfig, Designer
from spade_core.plugins.backends import load_backend
from spade_core.validation import GroundingThresholds, ValidationConfig
from spade_registry.store import RegistryStore

GOOD = (Path(__file__).parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text()
OTHER = (Path(__file__).parents[1] / "validation" / "grounding_corpus" / "grounded_revolution_dates.py").read_text()
SLOW_S = 4.0


def test_a_slow_answer_does_not_hold_up_another_candidates_repair(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"d{i}", "title": f"Doc {i}", "text": text}) for i, text in enumerate(
        ["Slow topic: binary search over numbers from 100 to 999.", "Fast topic: binary search with clues."])) + "\n")
    corpus = open_corpus(f"jsonl:{path}")
    events: list[tuple[float, str]] = []
    lock = threading.Lock()

    def note(what: str) -> None:
        with lock:
            events.append((time.perf_counter(), what))

    def respond(messages: list[dict[str, str]]) -> str:
        user = messages[1]["content"]
        repair = len(messages) > 2
        if "Slow topic" in user:
            note("slow request")
            time.sleep(SLOW_S)
            note("slow answer")
            return "```python\n" + GOOD + "```"
        note("fast repair" if repair else "fast request")
        if repair:
            return "```python\n" + OTHER + "```"
        return "I will think about it first."  # no module: rejected at once, so a repair is due

    with CannedServer(respond) as server:
        backend = load_backend(server.spec)
        designer = Designer(backend, corpus, RegistryStore(tmp_path / "store.sqlite3"),
                            config=DesignConfig(domain="math", max_repairs=1, max_new_tokens=4096, calibrate=False),
                            validation=ValidationConfig(seeds=(0, 1, 2), baseline_episodes=3,
                                                        grounding=GroundingThresholds(require_use=False)))
        assert designer.pipelined_concurrency() == backend.max_concurrency > 1
        result = designer.design(2, documents=[corpus.get("d0"), corpus.get("d1")])
    at = {what: t for t, what in events}
    assert at["fast repair"] < at["slow answer"], events  # the repair went out while the slow request was in flight
    slow, fast = result.candidates
    assert slow.accepted and len(slow.attempts) == 1, slow.final.report.message
    assert fast.accepted and len(fast.attempts) == 2, fast.final.report.message
    assert fast.attempts[0].report.failed_stage == "extraction"
    assert sorted(c.final.report.env_id for c in result.candidates) == ["spade/RevolutionDates-v0", "spade/SecretNumber-v0"]
