"""Host-side parsing is serialised (``spade_registry.syntax``): CPython 3.11's AST conversion keeps its depth counter in
interpreter-wide state, so two threads parsing while a garbage collection switches between them can make a valid
module fail with ``SystemError: AST constructor recursion depth mismatch`` (seen in a validation run)."""

from __future__ import annotations

import gc
import re
import threading
import time
from pathlib import Path

import pytest

from spade_registry.syntax import compile_tree, parse_source

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "def f(x):\n" + "".join(f"    y{i} = [x + {i} for x in range({i})] if x else {{'a': ({i}, x)}}\n"
                                  for i in range(200))


def test_threads_parsing_while_collections_switch_threads_never_fail() -> None:
    errors: list[str] = []
    thresholds = gc.get_threshold()

    def switch(phase: str, info: dict) -> None:
        if phase == "start":
            time.sleep(0)  # a collection that lets another thread run mid-conversion

    def work() -> None:
        for _ in range(30):
            try:
                compile_tree(parse_source(SOURCE, "<race>"), "<race>", "exec")
            except SystemError as error:
                errors.append(str(error))

    gc.set_threshold(5, 1, 1)
    gc.callbacks.append(switch)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.callbacks.remove(switch)
        gc.set_threshold(*thresholds)
    assert errors == []


def test_host_code_parses_only_through_the_lock() -> None:
    direct = re.compile(r"\bast\.parse\(|[^_.\w]compile\(\s*tree\b")
    offenders = [f"{path.relative_to(ROOT)}:{n}" for folder in ("spade_core", "registry", "plugins", "trainers")
                 for path in sorted((ROOT / folder).rglob("*.py")) if path.name != "syntax.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if direct.search(line)]
    assert offenders == []


def test_a_spurious_depth_mismatch_is_parsed_again(monkeypatch) -> None:
    """CPython 3.11 raises ``SystemError: AST constructor recursion depth mismatch`` for valid source when another
    thread parses at the same time outside the lock (gh-106905): the parse is run again, other errors pass."""
    import ast as ast_module

    from spade_registry import syntax

    real, calls = ast_module.parse, []

    def flaky(source, filename="<unknown>", mode="exec"):
        calls.append(source)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=33, after=53)")
        return real(source, filename, mode)

    monkeypatch.setattr(ast_module, "parse", flaky)
    assert isinstance(syntax.parse_source("x = 1"), ast_module.Module) and len(calls) == 2
    monkeypatch.setattr(ast_module, "parse", lambda *a: (_ for _ in ()).throw(SystemError("something else")))
    with pytest.raises(SystemError, match="something else"):
        syntax.parse_source("x = 1")
