"""``spade eval --model openai:<model>@<url>`` reads the same model spec as ``spade design`` and self-play, through the
same loader: a served model answers the benchmark questions and is scored."""

from __future__ import annotations

import json
from pathlib import Path

from canned_openai_server import CannedServer
from click.testing import CliRunner

from spade_core.cli.main import cli


def reply(messages: list[dict[str, str]]) -> str:
    return "2 + 3 is five, so the answer is \\boxed{5}." if "2 + 3" in messages[-1]["content"] else "\\boxed{9}"


def test_a_served_model_is_evaluated(tmp_path: Path) -> None:
    suite = tmp_path / "q.jsonl"
    suite.write_text('{"question": "What is 2 + 3?", "answer": "5"}\n{"question": "What is 4 + 4?", "answer": "8"}\n')
    with CannedServer(reply) as server:
        result = CliRunner().invoke(cli, ["eval", "--model", server.spec, "--suite", f"jsonl:{suite}", "--json",
                                          "--out", str(tmp_path / "run"), "--concurrency", "1", "--timeout", "30"])
        requests = server.log.posts("/chat/completions")
    assert result.exit_code == 0, result.output
    (summary,) = json.loads(result.output[result.output.index("["):])
    assert summary["n"] == 2 and summary["successes"] == 1 and summary["model"] == server.spec
    assert len(requests) == 2 and all(r["model"] == server.model for r in requests)
