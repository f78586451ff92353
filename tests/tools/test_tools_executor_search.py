"""The python executor (sandboxed) and corpus search tools."""

from __future__ import annotations

from spade_core.plugins import PluginRegistry
from spade_tools.corpus_search import CorpusSearch
from spade_tools.python_executor import PythonExecutor


def test_python_executor_runs_code_and_tests_in_the_sandbox() -> None:
    tool = PythonExecutor(timeout_s=2.0)
    result = tool.call("run_python", {"code": "def f(x):\n    return x * 2\nprint(f(21))",
                                      "tests": ["assert f(2) == 4", "assert f(1) == 3"]})
    assert result["stdout"] == "42\n" and (result["passed"], result["failed"]) == (1, 1)
    assert result["tests"][1]["error"].startswith("line 1: AssertionError")
    assert tool.snapshot() == {"runs": [{"ok": False, "passed": 1, "failed": 1}]}


def test_python_executor_contains_hostile_and_slow_code() -> None:
    tool = PythonExecutor(timeout_s=1.0)
    assert "import of 'os' is not allowed" in tool.call("run_python", {"code": "import os"})["error"]
    # agent code gets the standard-library stand-ins only, never the environment helpers
    assert "not allowed" in tool.call("run_python", {"code": "import spade_tools.filesystem"})["error"]
    slow = tool.call("run_python", {"code": "while True:\n    pass"})
    assert slow["ok"] is False and slow["error"]
    assert tool.call("run_python", {"code": ""})["error"].startswith("tool 'run_python'")


def test_corpus_search_finds_and_reads_documents() -> None:
    tool = CorpusSearch()
    hits = tool.call("search_corpus", {"query": "Pythagorean theorem right triangle", "k": 3})["results"]
    assert hits[0]["title"] == "Pythagorean theorem"
    document = tool.call("read_document", {"doc_id": hits[0]["doc_id"]})
    assert "triangle" in document["text"]
    assert tool.call("read_document", {"doc_id": "No such article"})["error"].startswith("read_document: no document")
    assert tool.snapshot() == {"opened": ["Pythagorean theorem"]}


def test_tools_are_listed_by_the_plugin() -> None:
    names = {t.name for t in PluginRegistry().collect_flat("spade_tools")}
    assert {"run_python", "search_corpus", "read_document", "ls", "transfer", "calculate"} <= names
