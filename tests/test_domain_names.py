"""Core never names a bundled domain: every domain fact it needs comes from the domain's ``DomainSpec``, so a third
party adds a domain without editing ``spade_core/``.

What counts: a string literal (outside docstrings, f-string pieces included) equal to a bundled domain's name, any
literal naming a bundled domain package (``spade_domains.<x>``), and any import of ``spade_domains``. English words
in docstrings and comments do not count. A literal that equals a domain name but means something else (the ``math``
module of the sandbox allow-list, the ``code`` request of a sandbox worker) is listed below with its reason; an
entry that no longer matches anything fails, so the list cannot go stale.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from spade_core.plugins import get_plugins

CORE = Path(__file__).resolve().parents[1] / "spade_core"

NOT_A_DOMAIN: dict[tuple[str, str], tuple[int, str]] = {
    ("sandbox/allowlist.py", "math"): (2, "the standard-library math module in the sandbox allow-list"),
    ("sandbox/codeexec.py", "code"): (2, "the sandbox's run-agent-code request and its 'code' field"),
    ("sandbox/worker.py", "code"): (3, "the run-agent-code request a worker sends, and a slot name"),
    ("smallworld/family.py", "code"): (1, "the template slot of the small world's relay code letter"),
    ("selfplay/report.py", "code"): (1, "the report table's column of links to each design's code"),
}
"""(file under spade_core/, literal) -> (how many times it appears, what it means there)."""


def bundled_domains() -> set[str]:
    registry = get_plugins()
    bundled = {p.name for p in registry.loaded if p.module.startswith("spade_domains.")}
    return {spec.name for plugin, specs in registry.collect("spade_domains") if plugin in bundled for spec in specs}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        # attribute docstrings: a bare string right after an assignment
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                for stmt in stmts[1:]:
                    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                        ids.add(id(stmt.value))
    return ids


def domain_literals(names: set[str], root: Path = CORE) -> tuple[Counter[tuple[str, str]], list[str]]:
    """Counts of (file, literal) for literals equal to a domain name, and every package reference or import."""
    counts: Counter[tuple[str, str]] = Counter()
    references: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                references += [f"{rel}:{node.lineno}: import {m}" for m in modules if m.split(".")[0] == "spade_domains"]
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
                continue
            if node.value in names:
                counts[(rel, node.value)] += 1
            if "spade_domains." in node.value:
                references.append(f"{rel}:{node.lineno}: {node.value[:80]!r}")
    return counts, references


def test_the_bundled_domains_are_found() -> None:
    assert bundled_domains() == {"math", "code", "tool_use", "games"}


def test_core_names_no_bundled_domain() -> None:
    counts, references = domain_literals(bundled_domains())
    assert not references, "core refers to a bundled domain package:\n" + "\n".join(references)
    unexplained = {key: n for key, n in counts.items() if key not in NOT_A_DOMAIN}
    assert not unexplained, (
        f"bundled domain names as string literals in spade_core/ (file, name): count {unexplained}; read the fact "
        "from the domain's DomainSpec (spade_core.plugins.domains) instead")
    stale = {key: (n, counts.get(key, 0)) for key, (n, _) in NOT_A_DOMAIN.items() if counts.get(key, 0) != n}
    assert not stale, f"NOT_A_DOMAIN is out of date: (file, literal) -> (listed, found) {stale}"


def test_the_scan_sees_domain_names_in_code_but_not_in_docstrings(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        '"""About games."""\nfrom spade_domains.games import verify\n\n\ndef f(domain):\n'
        '    """Plays games."""\n    return domain == "games" or f"{domain}" == "games"\n\n\n'
        'KIND = {"games": "label"}\n"""Games are labels."""\nMODULE = "spade_domains.games.verify"\n')
    counts, references = domain_literals({"games"}, tmp_path)
    assert counts == {("a.py", "games"): 3}
    assert [r.split(": ", 1)[1] for r in references] == ["import spade_domains.games", "'spade_domains.games.verify'"]
