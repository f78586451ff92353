"""Plugin system: hookspecs, typed contributions and entry-point discovery."""

from spade_core.plugins.hookspecs import ENTRY_POINT_GROUP, hookimpl, hookspec
from spade_core.plugins.manager import PluginFailure, PluginRegistry, get_plugins, reset_plugins

__all__ = ["ENTRY_POINT_GROUP", "PluginFailure", "PluginRegistry", "get_plugins", "hookimpl", "hookspec", "reset_plugins"]
