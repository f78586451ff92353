"""The import graph of every SPADE package, built from the AST of each module: no module-level cycle, no cycle
between packages (``spade_registry`` <-> ``spade_core`` included), no package importing one of a higher layer
(:data:`LAYERS`, also drawn in ``docs/architecture.md``), and the plugin hook specs stay free of the parts that
implement contributions.

Every import counts, at module top, inside a function (a function-level import is a dependency all the same) or
under ``if TYPE_CHECKING:`` (an annotation that needs a module above, or one that closes a circle, is a dependency
too). ``from package import name`` counts as importing ``package.name`` when that is a module, else ``package``.
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

LAYERS: tuple[tuple[str, ...], ...] = (  # lowest first; a package imports only from its own layer or lower ones
    ("spade_registry", "spade_core.errors", "spade_core.cache_root", "spade_core.deadlines", "spade_core.display",
     "spade_core.heap", "spade_core.linear_re", "spade_core.package_data", "spade_core.seeding",
     "spade_core.typed_config", "spade_core.scaffold"),
    ("spade_core.contract", "spade_core.models"),
    ("spade_core.rollout", "spade_core.training"),
    ("spade_core.plugins",),
    ("spade_core.sandbox", "spade_core.corpora", "spade_core.evaluation"),
    ("spade_core.gym_bridge",),
    ("spade_core", "spade_core.memory"),
    ("spade_core.validation", "spade_core.mutation"),
    ("spade_core.designer", "spade_core.packs", "spade_core.scale", "spade_core.adapters"),
    ("spade_core.smallworld",),
    ("spade_core.selfplay",),
    ("spade_core.cli", "spade_core.builtin_plugin", "spade_domains", "spade_tools", "spade_trainers"),
)
PENDING_CYCLES: set[frozenset[str]] = set()  # circles known and being removed (none today); each must still exist


def module_files() -> dict[str, Path]:
    modules = {}
    for name, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([name, *parts])] = path
    return modules


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    return (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


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
    assert "spade_core.cli.selfplay_command" in edges["spade_core.cli.main"]
    assert "spade_core.selfplay.loop" in edges["spade_core.cli.selfplay_command"]


def strongly_connected(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The groups of nodes that reach each other (every cycle lies inside one), groups of one left out."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[frozenset[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for node in sorted(edges):
        if node not in order:
            visit(node)
    return groups


def test_no_module_level_import_cycle() -> None:
    groups = set(strongly_connected(graph()))
    assert groups - PENDING_CYCLES == set(), "import cycles: " + "; ".join(
        " <-> ".join(sorted(group)) for group in groups - PENDING_CYCLES)
    assert PENDING_CYCLES - groups == set(), "a pending cycle is gone: remove it from PENDING_CYCLES"


def layer_of(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise AssertionError(f"package {package!r} is in no layer: add it to LAYERS (and docs/architecture.md)")


def test_every_package_has_a_layer() -> None:
    packages = {package_of(m) for m in graph()}
    listed = {name for layer in LAYERS for name in layer}
    assert packages - listed == set(), "packages in no layer (add them to LAYERS and docs/architecture.md)"
    assert listed - packages == set(), "LAYERS names packages that do not exist"


def test_no_package_imports_a_higher_layer() -> None:
    upward = sorted(f"{module} -> {target}" for module, targets in graph().items() for target in targets
                    if layer_of(package_of(target)) > layer_of(package_of(module)))
    assert upward == [], "imports of a higher layer:\n" + "\n".join(upward)


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
    assert strongly_connected({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == [frozenset({"a", "b"})]


def test_type_checking_imports_count() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import spade_core.training\n"
                     "def f():\n    import spade_core.models\n")
    assert {a.name for n in _imports(tree) if isinstance(n, ast.Import) for a in n.names} == {
        "spade_core.training", "spade_core.models"}
