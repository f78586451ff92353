"""Parsing Python source in a threaded host: one lock around CPython's conversions between source, AST and code.

CPython 3.11 keeps the depth counter of its AST conversions in interpreter-wide state (gh-106905). When two threads
parse at once (validation runs candidates on a thread pool) and a garbage collection runs Python code in the middle
of one conversion, the other thread's conversion moves the counter, and ``ast.parse`` raises ``SystemError: AST
constructor recursion depth mismatch`` for valid source: a good module rejected at the structure stage, by chance.
Every host-side parse and AST compile goes through this module's lock. Code this lock cannot cover parses too
(Python 3.11's traceback formatting parses source lines to place its ``^^^`` markers), so a conversion that still
meets the mismatch is run again: the error says nothing about the source.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable
from types import CodeType
from typing import TypeVar

T = TypeVar("T")

_LOCK = threading.RLock()
_MISMATCH = "recursion depth mismatch"
"""The text of CPython's spurious ``SystemError`` (gh-106905)."""
TRIES = 4


def _retrying(convert: Callable[[], T]) -> T:
    """``convert()``, run again when CPython reports the spurious depth mismatch (any other error passes)."""
    for _ in range(TRIES - 1):
        try:
            return convert()
        except SystemError as exc:
            if _MISMATCH not in str(exc):
                raise
    return convert()


def parse_source(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse``, one thread at a time."""
    with _LOCK:
        return _retrying(lambda: ast.parse(source, filename, mode))


def compile_tree(tree: ast.AST, filename: str, mode: str) -> CodeType:
    """``compile`` of an AST (no inherited future flags), one thread at a time."""
    with _LOCK:
        return _retrying(lambda: compile(tree, filename, mode, dont_inherit=True))
