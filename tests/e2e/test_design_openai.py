"""``spade design --model openai:<model>@<url>`` end to end against a local OpenAI-compatible server that answers
with capable-model completions (tests/e2e/completions: prose around the module, fences inside string literals,
~5k tokens for code). Each is accepted at the first attempt with the default budget; one cut at the token limit is
reported as cut, in the stored report and in the repair prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from canned_openai_server import CannedServer, tokenize
from capable_completions import COMPLETIONS, DOCUMENTS, DOMAINS, by_domain
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.designer.budget import design_token_budget
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import SeedEnvironment
from spade_registry.records import Status
from spade_registry.store import RegistryStore


def corpus_for(domain: str, tmp_path: Path) -> str:
    path = tmp_path / f"{domain}.jsonl"
    path.write_text(DOCUMENTS[domain] + "\n", encoding="utf-8")
    return f"jsonl:{path}"


def default_budget(domain: str) -> int:
    spec = next(d for d in get_plugins().collect_flat("spade_domains") if d.name == domain)
    return design_token_budget([SeedEnvironment(m).source() for m in spec.worked_examples])


def design(server: CannedServer, domain: str, tmp_path: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, [
        "--store", str(tmp_path / "store.sqlite3"), "design", "--domain", domain, "--n", "1", "--model", server.spec,
        "--corpus", corpus_for(domain, tmp_path), "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


def test_the_code_completion_is_a_long_one() -> None:
    tokens = len(tokenize(COMPLETIONS["code"]))
    assert tokens > 4096 > 640 and tokens < default_budget("code")
    for domain in DOMAINS:
        body = COMPLETIONS[domain].split("```python\n", 1)[1]
        assert "\n```\n" in body.split("\n```\n\n", 1)[0] or "```python\\n" in body  # a fence inside a string


@pytest.mark.parametrize("domain", DOMAINS)
def test_capable_completions_are_accepted_with_the_default_budget_and_no_repair(domain: str, tmp_path: Path) -> None:
    with CannedServer(by_domain) as server:
        summary = design(server, domain, tmp_path, "--max-repairs", "2")
        requests = server.log.posts("/chat/completions")
    assert summary["accepted"] == 1 and summary["attempts"] == 1, summary
    assert summary["cut_at_token_limit"] == 0 and summary["tokens"] == len(tokenize(COMPLETIONS[domain]))
    assert len(requests) == 1 and requests[0]["max_tokens"] == default_budget(domain) >= 4096
    assert "stop" not in requests[0]  # no stop string that a fence inside a string literal would trigger
    (env_id,) = summary["accepted_ids"]
    record = RegistryStore(tmp_path / "store.sqlite3").get(env_id)
    assert record.status == Status.ACCEPTED and record.domain == domain


def test_a_cut_completion_is_reported_as_cut_in_the_report_and_the_repair_prompt(tmp_path: Path) -> None:
    with CannedServer(by_domain) as server:
        summary = design(server, "code", tmp_path, "--max-new-tokens", "1500", "--max-repairs", "1")
        requests = server.log.posts("/chat/completions")
    assert summary["accepted"] == 0 and summary["attempts"] == 2 and summary["cut_at_token_limit"] == 2
    note = "cut at the token limit (1500 tokens)"
    repair = requests[1]["messages"][-1]["content"]
    assert note in repair and requests[1]["messages"][-2]["role"] == "assistant"
    failed = RegistryStore(tmp_path / "store.sqlite3").query(status=Status.FAILED)
    assert failed and all(note in (r.report or {}).get("message", "") for r in failed)
