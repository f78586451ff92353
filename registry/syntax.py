"""Parsing Python source in a threaded host: one lock around CPython's conversions between source, AST and code.

CPython 3.11 keeps the depth counter of its AST conversions in interpreter-wide state (gh-106905). When two threads
parse at once (validation runs candidates on a thread pool) and a garbage collection runs Python code in the middle
of one conversion, the other thread's conversion moves the counter, and ``ast.parse`` raises ``SystemError: AST
constructor recursion depth mismatch`` for valid source: a good module rejected at the structure stage, by chance.
Every host-side parse and AST compile goes through this module's lock.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType

_LOCK = threading.RLock()


def parse_source(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename, mode)


def compile_tree(tree: ast.AST, filename: str, mode: str) -> CodeType:
    """``compile`` of an AST (no inherited future flags), one thread at a time."""
    with _LOCK:
        return compile(tree, filename, mode, dont_inherit=True)
