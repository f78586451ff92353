"""The registry store a ``spade`` command works on: the one ``spade --store`` names, every plugin's seeds synced."""

from __future__ import annotations

import click

from spade_core.cli.consoles import err_console
from spade_core.display import markup
from spade_core.gym_bridge import open_store
from spade_core.validation.seed_gate import gate_plugin_seeds
from spade_registry.store import RegistryStore


def synced_store(ctx: click.Context) -> RegistryStore:
    """The store, with every plugin's seeds synced (third-party ones through the gate, once per code)."""
    store = open_store(ctx.obj["store"])
    result = gate_plugin_seeds(store)
    for problem in result.problems:
        err_console.print(f"[yellow]warning:[/] {markup(problem)}", highlight=False)
    return store
