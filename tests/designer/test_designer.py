"""The designer: parsing messy completions, prompt assembly, the repair loop, memory in prompts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade_core.corpora import open_corpus
from spade_core.designer.loop import EXTRACTION_STAGE, DesignConfig, Designer
from spade_core.designer.parsing import ExtractionError, extract_module
from spade_core.designer.prompts import DesignRequest, MemoryExample, build_messages, repair_messages
from spade_core.gym_bridge import sync_seed_environments
from spade_core.memory import EnvironmentMemory, HashingEmbedder
from spade_core.models.tiny import build_tiny_model
from spade_core.rollout.scripted import ScriptedPolicy
from spade_core.validation import GroundingThresholds, ValidationConfig
from spade_registry.records import Status
from spade_registry.store import RegistryStore

GOOD = (Path(__file__).parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text()
MODULE = 'ENV_SPEC = {"name": "X"}\n\nclass X:\n    def step(self, action):\n        return 1\n'


def test_extracts_the_env_block_from_prose_and_several_blocks() -> None:
    completion = (f"Sure! Here is a helper:\n```python\ndef helper():\n    return 1\n```\nAnd the environment:\n"
                  f"```python\n{MODULE}```\nHope this helps.")
    extracted = extract_module(completion)
    assert extracted.source == MODULE and extracted.how == "fenced" and extracted.blocks_seen == 2


def test_accepts_a_truncated_final_block_and_unfenced_code() -> None:
    truncated = extract_module(f"Here you go:\n```python\n{MODULE}    def reset(self")
    assert truncated.how == "unterminated-fence" and "def reset(self" in truncated.source
    unfenced = extract_module(f"The module is below.\n\n{MODULE}")
    assert unfenced.how == "unfenced" and unfenced.source.startswith("ENV_SPEC")


@pytest.mark.parametrize(("completion", "message"), [
    ("", "the completion is empty"),
    ("I cannot write code today.", "found no code"),
    ("```python\nprint('hi')\n```", "none defines ENV_SPEC"),
])
def test_says_what_it_found_when_there_is_no_module(completion: str, message: str) -> None:
    with pytest.raises(ExtractionError, match=message):
        extract_module(completion)


def test_prompt_holds_contract_document_examples_and_failures() -> None:
    messages = build_messages(DesignRequest(
        domain="math", guidance="Use exact answers.", document_title="Prime number",
        document_text="A prime number is a natural number greater than 1.",
        allowed_modules={"math": ["sqrt"], "re": ["compile"]},
        worked_example=GOOD, neighbours=[MemoryExample("SecretNumber", "guess a number")],
        failures=[MemoryExample("Broken", "failed:policy: import of 'os' is not allowed")],
    ))
    system, user = messages[0]["content"], messages[1]["content"]
    assert "privileged_hint" in system and "reference_action" in system and "math (" in system and "re (" in system
    assert "Use exact answers." in system
    assert "Prime number" in user and "greater than 1" in user and "class SecretNumber" in user
    assert "SecretNumber: guess a number" in user and "import of 'os' is not allowed" in user
    repair = repair_messages(messages, "bad code", "rejected at stage 'policy'")
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "rejected at stage 'policy'" in repair[-1]["content"]
    # a second repair carries the latest attempt only (no longer than the first), and names what failed before
    second = repair_messages(repair, "worse code", "rejected at stage 'contract'")
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == "worse code" and "bad code" not in str(second)
    assert "Earlier attempts: rejected at stage 'policy'" in second[-1]["content"]


@pytest.fixture
def corpus(tmp_path: Path):
    path = tmp_path / "docs.jsonl"
    docs = [{"id": f"d{i}", "title": f"Doc {i}", "text": f"Binary search halves an interval {i} times: one player "
             "picked a number from 100 to 999, the other guesses it."}
            for i in range(4)]
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    return open_corpus(f"jsonl:{path}")


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(build_tiny_model(tmp_path_factory.mktemp("tiny")))


def test_repair_loop_sends_the_validator_message_back_and_records_every_attempt(
        tmp_path: Path, corpus, tokenizer) -> None:
    seen: list[str] = []

    def act(prompt: str) -> str:
        seen.append(prompt)
        if "was rejected" in prompt:
            return "Fixed:\n```python\n" + GOOD + "```"
        return "Let me think about it... no code yet."

    store = RegistryStore(tmp_path / "store.sqlite3")
    designer = Designer(ScriptedPolicy(tokenizer, act), corpus, store,
                        config=DesignConfig(domain="math", max_repairs=2, max_new_tokens=4096, calibrate=False),
                        # the fixed module shows one word of its document ("picked"): enough for this loop test
                        validation=ValidationConfig(grounding=GroundingThresholds(require_use=False)))
    result = designer.design(1, documents=[corpus.get("d1")])
    candidate = result.candidates[0]
    assert [a.report.failed_stage for a in candidate.attempts] == [EXTRACTION_STAGE, None]
    assert candidate.accepted and candidate.final.report.env_id == "spade/SecretNumber-v0"
    assert "found no code" in seen[1] and "Binary search" in seen[0]
    failed = store.query(status=Status.FAILED)
    assert len(failed) == 1 and failed[0].failed_stage == EXTRACTION_STAGE
    assert failed[0].provenance["doc_id"] == "d1"
    summary = result.summary()
    assert summary["accepted"] == 1 and summary["repairs_per_accepted"] == 1.0


def test_repairs_are_bounded(tmp_path: Path, corpus, tokenizer) -> None:
    store = RegistryStore(tmp_path / "store.sqlite3")
    policy = ScriptedPolicy(tokenizer, lambda prompt: "```python\nprint('not an env')\n```")
    result = Designer(policy, corpus, store, config=DesignConfig(domain="games", max_repairs=2)).design(2)
    assert [len(c.attempts) for c in result.candidates] == [3, 3]
    assert result.summary()["rejected_by_stage"] == {EXTRACTION_STAGE: 2}
    assert policy.calls == 3  # every round is one batched call


def test_memory_neighbours_reach_the_prompt(tmp_path: Path, corpus, tokenizer) -> None:
    store = RegistryStore(tmp_path / "store.sqlite3")
    sync_seed_environments(store)
    memory = EnvironmentMemory(store, embedder=HashingEmbedder())
    designer = Designer(ScriptedPolicy(tokenizer, lambda p: ""), corpus, store, memory=memory,
                        config=DesignConfig(domain="math", neighbours=2))
    user = designer.messages_for(corpus.get("d0"))[1]["content"]
    assert "Environments already in the pool" in user
    names = {r.name for r in store.query(domain="math", status=Status.ACCEPTED)}
    listed = [line[2:].split(":")[0] for line in user.splitlines() if line.startswith("- ")]
    assert listed and set(listed[:2]) <= names


def test_tiny_model_end_to_end_records_all_candidates(tmp_path: Path, corpus) -> None:
    from spade_core.models.hf_generator import HFGenerator

    store = RegistryStore(tmp_path / "store.sqlite3")
    generator = HFGenerator.from_pretrained(build_tiny_model(tmp_path / "tiny"))
    designer = Designer(generator, corpus, store, config=DesignConfig(
        domain="games", max_repairs=1, max_new_tokens=24, worked_example=False))
    result = designer.design(2)
    summary = result.summary()
    assert summary["candidates"] == 2 and summary["attempts"] == 4 and summary["accepted"] == 0
    assert store.count(status=Status.FAILED) >= 1
    assert designer.generate_seconds > 0
