"""The text that stands for an environment when it is embedded: what it is about, then how it works.

MiniLM reads at most 256 word pieces, so the most telling parts come first: name, domain, description, tools and
difficulty knobs from the manifest, then from the code the docstrings, class and method names and the attributes
the environment keeps (``self.board``, ``self.target``), with identifiers split into words. Code that does not parse
(a truncated failed candidate) still contributes its identifiers.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from spade_core import linear_re
from spade_registry.syntax import parse_source

TEXT_VERSION = 1
"""Bump when the recipe changes: the store keys cached vectors by embedder name and this version."""

_IDENT = linear_re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_CAMEL = linear_re.compile(r"([a-z0-9])([A-Z])")
_SKIP = frozenset({
    "self", "def", "class", "return", "import", "from", "none", "true", "false", "reset", "step", "rng", "options",
    "info", "obs", "action", "int", "str", "float", "bool", "list", "dict", "len", "range", "env", "spec", "the",
})


def words_of(identifier: str) -> str:
    """``MazeRunner_v2`` -> ``maze runner v2``."""
    return " ".join(p for p in _CAMEL.sub(r"\1 \2", identifier).replace("_", " ").lower().split() if p)


def record_text(manifest: Mapping[str, Any], code: str, *, max_chars: int = 1500) -> str:
    """The embedding text of an environment (see the module docstring), at most ``max_chars`` characters."""
    parts: list[str] = []
    name = manifest.get("name")
    if isinstance(name, str) and name:
        parts.append(words_of(name) + ".")
    for key in ("domain", "description"):
        value = manifest.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip().rstrip(".") + ".")
    tools = manifest.get("tools")
    if isinstance(tools, (list, tuple)) and tools:
        parts.append("Tools: " + ", ".join(str(t) for t in tools[:12]) + ".")
    knobs = manifest.get("difficulty")
    if isinstance(knobs, Mapping) and knobs:
        parts.append("Difficulty: " + ", ".join(words_of(str(k)) for k in list(knobs)[:8]) + ".")
    parts.append(code_summary(code))
    return " ".join(p for p in parts if p)[:max_chars]


def code_summary(code: str) -> str:
    """Docstrings, class/function names and instance attributes of ``code``, as words, de-duplicated in order."""
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError):
        return _unique(words_of(m) for m in _IDENT.findall(code) if m.lower() not in _SKIP)
    docs: list[str] = []
    names: list[str] = []
    module_doc = ast.get_docstring(tree)
    if module_doc:
        docs.append(module_doc.strip().splitlines()[0])
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("__"):
                names.append(node.name)
            doc = ast.get_docstring(node)
            if doc:
                docs.append(doc.strip().splitlines()[0])
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.append(node.attr)
    text_docs = " ".join(d.rstrip(".") + "." for d in _dedupe(docs))
    return (text_docs + " " + _unique(words_of(n) for n in names if n.lower() not in _SKIP)).strip()


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _unique(phrases: Any) -> str:
    return " ".join(dict.fromkeys(p for p in phrases if p))
