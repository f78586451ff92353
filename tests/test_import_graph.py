"""The import graph of every SPADE package, built from the AST of each module: no module-level cycle, no cycle
between packages (``spade_registry`` <-> ``spade_core`` included), and the plugin hook specs stay free of the
parts that implement contributions.

Every import counts, at module top or inside a function (a function-level import is a dependency all the same);
imports under ``if TYPE_CHECKING:`` are annotations only and do not count. ``from package import name`` counts as
importing ``package.name`` when that is a module, else ``package``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {  # import name -> folder (setup.py's PACKAGE_DIRS)
    "spade_core": ROOT / "spade_core",
    "spade_registry": ROOT / "registry",
    "spade_domains": ROOT / "plugins" / "domains",
    "spade_tools": ROOT / "plugins" / "tools",
    "spade_trainers": ROOT / "trainers",
}
SUBPACKAGE_LEVEL = {"spade_core": 2}  # spade_core.<part> is a package of its own for the package-level check


def module_files() -> dict[str, Path]:
    modules = {}
    for name, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([name, *parts])] = path
    return modules


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for branch in node.orelse for n in _imports_in(branch))
            continue
        yield from _imports_in(node)


def _imports_in(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if isinstance(node, ast.If) and _type_checking(node):
        for branch in node.orelse:
            yield from _imports_in(branch)
        return
    for child in ast.iter_child_nodes(node):
        yield from _imports_in(child)


@cache
def graph() -> dict[str, set[str]]:
    modules = module_files()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges[module].add(target)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph, as a path that starts and ends at the same node, or None."""
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if colour.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in colour:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(edges):
        if node not in colour:
            found = visit(node)
            if found:
                return found
    return None


def package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[: SUBPACKAGE_LEVEL.get(parts[0], 1)])


def collapse(edges: dict[str, set[str]], key: object) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for src, targets in edges.items():
        a = key(src)
        out.setdefault(a, set())
        out[a] |= {key(t) for t in targets if key(t) != a}
    return out


def test_the_graph_covers_every_package() -> None:
    edges = graph()
    assert {package_of(m).split(".")[0] for m in edges} == set(PACKAGES)
    assert "spade_core.selfplay.loop" in edges["spade_core.cli.main"] or any(
        "spade_core.selfplay" in t for t in edges["spade_core.cli.main"])


def test_no_module_level_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_cycle_between_top_level_packages() -> None:
    cycle = find_cycle(collapse(graph(), lambda m: m.split(".")[0]))
    assert cycle is None, "package cycle: " + " -> ".join(cycle or [])


def test_no_cycle_between_spade_core_subpackages() -> None:
    core = {m: {t for t in ts if t.startswith("spade_core")} for m, ts in graph().items() if m.startswith("spade_core")}
    cycle = find_cycle(collapse(core, package_of))
    assert cycle is None, "subpackage cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("module", ["spade_core.plugins.hookspecs", "spade_core.plugins.contributions"])
def test_plugin_interfaces_do_not_import_implementations(module: str) -> None:
    """The hook specs and contribution types are what every plugin imports: they must not pull in evaluation,
    training, models or the self-play loop."""
    allowed = ("spade_core.plugins", "spade_core.errors")
    assert {t for t in graph()[module] if not t.startswith(allowed)} == set()


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
