"""``spade plugins``: the loaded plugins, what each contributes, and every one or seed that failed."""

from __future__ import annotations

import click
from rich.table import Table

from spade_core.cli.consoles import console, err_console
from spade_core.cli.pack_commands import PACK_HOOK, pack_table
from spade_core.display import markup, text
from spade_core.errors import PluginError
from spade_core.gym_bridge import open_store
from spade_core.gym_bridge.seeds import refused_seeds
from spade_core.plugins import get_plugins
from spade_core.plugins.hookspecs import all_hook_names
from spade_core.plugins.manager import PluginRegistry
from spade_core.validation.seed_gate import gate_plugin_seeds


@click.command("plugins")
@click.pass_context
def plugins_command(ctx: click.Context) -> None:
    """Show loaded plugins, where they come from, what they contribute, and any that failed (exit code 1 when a
    seed module cannot be found or the validation gate refused a third-party seed)."""
    registry = get_plugins()
    store = open_store(ctx.obj["store"])
    synced = gate_plugin_seeds(store, registry)
    contributions: dict[str, dict[str, list[str]]] = {}
    for hook in all_hook_names():
        if hook == PACK_HOOK:  # packs are data, listed apart from code below
            continue
        for plugin_name, result in registry.collect(hook):
            items = result.keys() if isinstance(result, dict) else [getattr(x, "name", getattr(x, "module", str(x))) for x in result]
            contributions.setdefault(plugin_name, {})[hook.removeprefix("spade_")] = list(items)
    table = Table(title="SPADE plugins")
    for column in ("plugin", "distribution", "version", "contributes"):
        table.add_column(column)
    for p in registry.loaded:
        parts = [f"{hook}: {', '.join(names)}" for hook, names in sorted(contributions.get(p.name, {}).items()) if names]
        table.add_row(text(p.name), text(p.distribution), text(p.version), text("\n".join(parts) or "-"))
    console.print(table)
    packs = pack_table(registry)
    if packs is not None:
        console.print(packs)
    for failure in registry.failures:
        err_console.print(f"[red]failed:[/] {markup(failure)}", highlight=False)
    for problem in synced.errors:
        err_console.print(f"[yellow]warning:[/] {markup(problem)}", highlight=False)
    broken = [*_broken_seed_paths(registry), *map(str, refused_seeds(store, registry))]
    for problem in broken:
        err_console.print(f"[red]failed:[/] {markup(problem)}", highlight=False)
    if broken:
        raise SystemExit(1)


def _broken_seed_paths(registry: PluginRegistry) -> list[str]:
    """Every contributed seed module that cannot be found, with the plugin that named it."""
    problems = []
    for plugin_name, seeds in registry.collect("spade_seed_environments"):
        for seed in seeds:
            try:
                seed.source_path()
            except PluginError as exc:
                problems.append(f"plugin {plugin_name!r}: {exc} (check the module path in spade_seed_environments)")
    return problems
