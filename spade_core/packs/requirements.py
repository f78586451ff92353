"""What a pack's environment needs from the importer's installed plugins: its domain, and any module outside the
standard library that it imports (a tool plugin's classes reach the sandbox only through a plugin's
``spade_sandbox_modules``). An environment needing a plugin the importer lacks is refused before the validation
gate, with the missing domain or module named, instead of failing a gate stage with advice meant for its designer.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from spade_core.packs.schema import PackEnvironment
from spade_core.plugins.domains import loaded_domains
from spade_core.sandbox.allowlist import merged_allowlist
from spade_registry.syntax import parse_source

MISSING_PLUGIN_STAGE = "missing_plugin"
"""The import stage at which an environment needing an absent plugin is refused."""


@dataclass(frozen=True)
class InstalledPlugins:
    """What the installed plugins provide, read once per import."""

    domains: frozenset[str]
    modules: frozenset[str]
    """Every module a plugin (or the base allow-list) makes importable in the sandbox."""


def installed_plugins() -> InstalledPlugins:
    return InstalledPlugins(frozenset(loaded_domains()), frozenset(merged_allowlist()))


def missing_plugin_problem(env: PackEnvironment, installed: InstalledPlugins) -> str | None:
    """Why ``env`` cannot run here for want of a plugin (naming the domain or module and how to get it), or None."""
    if env.domain not in installed.domains:
        return (f"{env.pack_id} is an environment of domain {env.domain!r}, which no installed plugin provides; "
                f"install the plugin that provides domain {env.domain!r} (`spade plugins` lists the installed ones: "
                f"{', '.join(sorted(installed.domains)) or 'none'}), then import the pack again")
    for module in _plugin_imports(env.code):
        if module not in installed.modules:
            return (f"{env.pack_id} imports the module {module!r}, which no installed plugin makes available to the "
                    f"sandbox; install the plugin that provides module {module!r} (a tool or domain plugin; "
                    "`spade plugins` lists the installed ones), then import the pack again")
    return None


def _plugin_imports(code: str) -> list[str]:
    """Modules outside the standard library that ``code`` imports at any depth, in order (none when it does not
    parse: the gate reports that)."""
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return [n for n in dict.fromkeys(names) if n.split(".")[0] not in sys.stdlib_module_names]
