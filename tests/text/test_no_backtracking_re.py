"""No host module runs Python's backtracking ``re`` on text it did not write itself.

Every module of the host packages is read with ``ast``; each use of a function of the ``re`` module (a call, or the
function passed on as a value) fails the test unless it is listed in :data:`TRUSTED` with the reason its input is a
trusted constant or the operator's own input. Model, designer and environment text goes through
:mod:`spade_core.linear_re` (RE2, linear time) or through plain one-pass code instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST_FOLDERS = ("spade_core", "registry", "plugins", "trainers")

SANDBOX_WRAPPERS = ("the re functions handed to environment code: they run in the sandbox worker, on the "
                    "environment's own behalf and under its CPU and time limits, never in host analysis")
TRUSTED: dict[tuple[str, str, str], str] = {
    **{("spade_core/sandbox/wrappers.py", name, ""): SANDBOX_WRAPPERS
       for name in ("compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split")},
    ("spade_core/sandbox/wrappers.py", "compile", "_plain_pattern(pattern)"): SANDBOX_WRAPPERS,
    ("spade_core/typed_config.py", "match", "'(?:[A-Za-z_]\\\\w*\\\\.)?([A-Za-z_]\\\\w*)\\\\b:?\\\\s*'"):
        "reads the head of a config check's error message, which words the operator's own config",
    ("spade_core/cli/pack_commands.py", "fullmatch", "'(\\\\d+)(?::(\\\\d+))?'"):
        "parses the operator's --iterations argument",
    ("spade_core/cli/pack_commands.py", "sub", "'[^a-z0-9_]'"):
        "a default pack name from the operator's output path",
    ("registry/ids.py", "compile",
     "'(?:(?P<ns>[A-Za-z0-9_-]{1,64})/)?(?P<name>[A-Za-z][A-Za-z0-9_.]{0,79})-v(?P<version>0|[1-9][0-9]{0,8})\\\\Z'"):
        "the id grammar: every quantifier bounded (at most 64 + 80 + 9 characters are ever matched), no nested "
        "quantifier; the registry sits below spade_core and cannot import linear_re",
    ("registry/manifest.py", "compile", "'[A-Za-z][A-Za-z0-9_.]{0,79}\\\\Z'"):
        "the name grammar: at most 80 characters are ever matched",
    ("registry/manifest.py", "compile", "'[a-z][a-z0-9_]{0,39}\\\\Z'"):
        "the domain grammar: at most 40 characters are ever matched",
    ("plugins/domains/code/seeds/regex_writer.py", "fullmatch", "self.family['pattern']"):
        "a seed environment's module (environment code, run in the sandbox worker) matching its own constant "
        "pattern family",
}


def _host_modules() -> list[Path]:
    return sorted(p for folder in HOST_FOLDERS for p in (ROOT / folder).rglob("*.py"))


def _re_uses(tree: ast.AST) -> list[tuple[str, str, int]]:
    """(function name, first argument's source or "" when not called, line) for each use of an ``re`` function."""
    aliases = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for a in node.names if a.name == "re"}
    uses: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "re":
            uses += [(f"from re import {a.name}", "", node.lineno) for a in node.names]
    called = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases):
            continue
        member = getattr(re, node.attr, None)
        if member is None or isinstance(member, type) or not callable(member):
            continue  # re.Pattern, re.Match (types), re.IGNORECASE (a flag)
        call = called.get(id(node))
        first = ast.unparse(call.args[0]) if call is not None and call.args else ""
        uses.append((node.attr, first, node.lineno))
    return uses


def test_host_modules_use_re_only_on_trusted_input() -> None:
    found: set[tuple[str, str, str]] = set()
    untrusted: list[str] = []
    for path in _host_modules():
        rel = path.relative_to(ROOT).as_posix()
        for name, first, line in _re_uses(ast.parse(path.read_text(encoding="utf-8"))):
            found.add((rel, name, first))
            if (rel, name, first) not in TRUSTED:
                untrusted.append(f"{rel}:{line}: re.{name}({first}...)")
    assert not untrusted, ("backtracking re on text the host did not write; use spade_core.linear_re (RE2) or "
                           "one-pass code, or list the call in TRUSTED with why its input is trusted:\n"
                           + "\n".join(untrusted))
    stale = sorted(set(TRUSTED) - found)
    assert not stale, f"TRUSTED lists uses that are gone; remove them: {stale}"


def test_scan_sees_calls_references_and_aliases() -> None:
    source = ("import re as rx\nfrom re import sub\nP = rx.compile('a+')\nf = rx.findall\nt = rx.Pattern\n"
              "g = rx.IGNORECASE\n")
    assert sorted((n, f) for n, f, _ in _re_uses(ast.parse(source))) == [
        ("compile", "'a+'"), ("findall", ""), ("from re import sub", "")]
