"""Discover SPADE plugins through entry points and call their hooks, isolating failures.

A plugin that fails to import, declares an unknown hook, or raises inside a hook is recorded in
:attr:`PluginRegistry.failures` with its name and distribution; every other plugin keeps working.
"""

from __future__ import annotations

import difflib
import importlib.metadata as metadata
import sys
import threading
from dataclasses import dataclass
from typing import Any

import pluggy

from spade_core.plugins import hookspecs
from spade_core.plugins.hookspecs import ENTRY_POINT_GROUP, PROJECT_NAME


@dataclass(frozen=True)
class LoadedPlugin:
    name: str
    distribution: str
    version: str
    module: str


@dataclass(frozen=True)
class PluginFailure:
    plugin: str
    distribution: str
    stage: str
    error: str

    def __str__(self) -> str:
        return f"plugin {self.plugin!r} ({self.distribution}) failed at {self.stage}: {self.error}"


class PluginRegistry:
    """The loaded plugins and a failure-isolating way to call their hooks."""

    def __init__(self, *, group: str = ENTRY_POINT_GROUP, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager(PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.loaded: list[LoadedPlugin] = []
        self.failures: list[PluginFailure] = []
        self.pending: list[str] = []
        """Plugins whose module was still being imported when discovery ran (see :func:`_mid_import`)."""
        self._dist_of: dict[str, str] = {}
        if load_entry_points:
            self._load_entry_points(group)

    def _load_entry_points(self, group: str) -> None:
        for ep in sorted(metadata.entry_points(group=group), key=lambda e: e.name):
            dist = ep.dist.name if ep.dist else "unknown"
            version = ep.dist.version if ep.dist else "?"
            if self.pm.has_plugin(ep.name):
                self.failures.append(PluginFailure(ep.name, dist, "load", "another plugin already uses this name"))
                continue
            if _mid_import(ep.module):
                self.pending.append(ep.name)
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # a broken plugin must not take the others down
                self.failures.append(PluginFailure(ep.name, dist, "import", f"{type(exc).__name__}: {exc}"))
                continue
            self.register(plugin, ep.name, distribution=dist, version=version)

    def register(self, plugin: Any, name: str, *, distribution: str = "local", version: str = "") -> bool:
        """Register a plugin object; returns False (and records why) if it declares unknown hooks."""
        unknown = self._unknown_hooks(plugin)
        if unknown:
            self.failures.append(PluginFailure(name, distribution, "validate", unknown))
            return False
        try:
            self.pm.register(plugin, name=name)
        except Exception as exc:  # pluggy validation errors and the like
            self.failures.append(PluginFailure(name, distribution, "register", f"{type(exc).__name__}: {exc}"))
            return False
        self._dist_of[name] = distribution
        module = getattr(plugin, "__name__", type(plugin).__name__)
        self.loaded.append(LoadedPlugin(name, distribution, version, module))
        return True

    def distribution_of(self, name: str) -> str:
        """The distribution plugin ``name`` was installed from (``"local"`` for one registered in-process)."""
        return self._dist_of.get(name, "local")

    @property
    def complete(self) -> bool:
        """False when some plugin was mid-import at discovery: its hooks are missing from this registry."""
        return not self.pending

    def unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self.loaded = [p for p in self.loaded if p.name != name]

    def _unknown_hooks(self, plugin: Any) -> str | None:
        known = set(hookspecs.all_hook_names())
        for attr in dir(plugin):
            if self.pm.parse_hookimpl_opts(plugin, attr) is None or attr in known:
                continue
            close = difflib.get_close_matches(attr, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            return f"implements unknown hook {attr!r}{hint}"
        return None

    def collect(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call one hook on every plugin; return ``(plugin name, result)`` for each that answered."""
        caller = getattr(self.pm.hook, hook_name)
        results = []
        for impl in reversed(caller.get_hookimpls()):
            try:
                result = impl.function(*[kwargs[arg] for arg in impl.argnames])
            except Exception as exc:  # isolate the failing plugin
                self.failures.append(
                    PluginFailure(impl.plugin_name, self.distribution_of(impl.plugin_name), hook_name,
                                  f"{type(exc).__name__}: {exc}")
                )
                continue
            if result is not None:
                results.append((impl.plugin_name, result))
        return results

    def collect_flat(self, hook_name: str, **kwargs: Any) -> list[Any]:
        """Concatenate the list results of one hook across plugins."""
        out: list[Any] = []
        for _, result in self.collect(hook_name, **kwargs):
            out.extend(result)
        return out


def _mid_import(module_name: str) -> bool:
    """True while ``module_name`` is being imported (its top level is running, its hooks not yet defined).

    A plugin module that imports ``spade_core`` first runs ``spade_core``'s own import, which discovers plugins:
    loading that entry point would return the half-made module and register it with no hooks."""
    module = sys.modules.get(module_name)
    return module is not None and bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


_lock = threading.Lock()
_registry: PluginRegistry | None = None


def get_plugins() -> PluginRegistry:
    """The process-wide plugin registry, loaded on first use (again on the next call while it is incomplete)."""
    global _registry
    with _lock:
        if _registry is not None:
            return _registry
        registry = PluginRegistry()
        if registry.complete:
            _registry = registry
        return registry


def reset_plugins() -> None:
    """Forget the loaded plugins (the next :func:`get_plugins` rediscovers them)."""
    global _registry
    with _lock:
        _registry = None
