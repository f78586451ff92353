"""Content identity of environment code: a hash of its normalised AST.

Formatting, comments and docstrings do not change the hash; any change to what the code does does. Code that
does not parse is hashed on its whitespace-normalised text so failed candidates still get a stable identity.
"""

from __future__ import annotations

import ast
import hashlib

from spade_registry.syntax import parse_source


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


def normalised_ast(source: str) -> str | None:
    """A canonical dump of the code's AST, or ``None`` if it does not parse."""
    try:
        tree = parse_source(source)
    except (SyntaxError, ValueError):
        return None
    return ast.dump(_strip_docstrings(tree), annotate_fields=False, include_attributes=False)


def content_hash(source: str) -> str:
    """``ast:<sha256>`` of the normalised AST, or ``raw:<sha256>`` of normalised text if it does not parse."""
    dumped = normalised_ast(source)
    if dumped is not None:
        return "ast:" + hashlib.sha256(dumped.encode("utf-8")).hexdigest()
    text = "\n".join(line.rstrip() for line in source.strip().splitlines())
    return "raw:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
