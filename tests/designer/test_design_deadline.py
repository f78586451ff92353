"""The designer under a deadline: checked before every request, it starts no candidate and no repair past it."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from transformers import AutoTokenizer

from spade_core.corpora import open_corpus
from spade_core.deadlines import Deadline, StopRequest
from spade_core.designer.loop import EXTRACTION_STAGE, DesignConfig, Designer
from spade_core.rollout.scripted import ScriptedPolicy
from spade_registry.store import RegistryStore

NOT_A_MODULE = "```python\nprint('not an env')\n```"  # rejected at extraction: a repair is due


def _corpus(tmp_path: Path):
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"d{i}", "title": f"Doc {i}", "text": f"Counting {i}."})
                              for i in range(3)) + "\n")
    return open_corpus(f"jsonl:{path}")


def test_no_repair_round_starts_past_the_deadline(tmp_path: Path, tiny_model_dir: Path) -> None:
    stop = StopRequest()

    def reply(prompt: str) -> str:
        stop.request("test")  # the deadline passes while the first round is generated
        return NOT_A_MODULE + re.findall(r"Doc \d", prompt)[0]  # one distinct record per candidate

    policy = ScriptedPolicy(AutoTokenizer.from_pretrained(tiny_model_dir), reply)
    store = RegistryStore(tmp_path / "store.sqlite3")
    designer = Designer(policy, _corpus(tmp_path), store, config=DesignConfig(domain="games", max_repairs=2))
    result = designer.design(2, deadline=Deadline(stop=stop))
    assert policy.calls == 1  # the first round only: its repairs never start
    assert [len(c.attempts) for c in result.candidates] == [1, 1] and result.not_started == 0
    assert all(c.status == EXTRACTION_STAGE for c in result.candidates)
    assert store.count() == 2  # what was requested is still validated and recorded


def test_no_candidate_starts_once_the_deadline_has_passed(tmp_path: Path, tiny_model_dir: Path) -> None:
    policy = ScriptedPolicy(AutoTokenizer.from_pretrained(tiny_model_dir), lambda prompt: NOT_A_MODULE)
    store = RegistryStore(tmp_path / "store.sqlite3")
    designer = Designer(policy, _corpus(tmp_path), store, config=DesignConfig(domain="games"))
    result = designer.design(2, deadline=Deadline(at=time.monotonic() - 1.0))
    assert policy.calls == 0 and result.candidates == [] and result.not_started == 2
    assert result.summary()["candidates"] == 0 and store.count() == 0
