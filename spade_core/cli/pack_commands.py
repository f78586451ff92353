"""``spade export`` and ``spade import``: environment packs (see :mod:`spade_core.packs`).

Attached to the ``spade`` group in :mod:`spade_core.cli.main`. Every string that came from a pack or a store
(ids, names, reasons, paths inside a pack) is printed through :mod:`spade_core.display`.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
from rich.table import Table

from spade_core.cli.consoles import console, err_console
from spade_core.display import json_text, markup, text
from spade_core.gym_bridge import open_store, register_store, sync_seed_environments
from spade_core.packs.export import FORMATS, ExportFilter, export_pack
from spade_core.packs.importing import ACCEPTED, DUPLICATE, REJECTED, import_pack
from spade_core.packs.reading import open_pack
from spade_core.plugins.contributions import PackSpec
from spade_core.plugins.manager import PluginRegistry
from spade_core.selfplay.lineage import run_history
from spade_registry.records import Status

PACK_HOOK = "spade_packs"
_STYLE = {ACCEPTED: "green", REJECTED: "bold red", DUPLICATE: "dim"}


def _iterations(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    match = re.fullmatch(r"(\d+)(?::(\d+))?", value.strip())
    if match is None:
        raise click.BadParameter(f"{value!r} must be N or FIRST:LAST (e.g. 3:7)", param_hint="--iterations")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) is not None else first
    if last < first:
        raise click.BadParameter(f"{value!r}: LAST must be >= FIRST", param_hint="--iterations")
    return first, last


def _default_name(out: str) -> str:
    stem = Path(out).name.split(".")[0].lower()
    name = re.sub(r"[^a-z0-9_]", "_", stem).strip("_")
    return name if name and name[0].isalpha() else f"pack_{name}"[:64]


@click.command("export")
@click.argument("out", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="folder, tar (.tar.gz), parquet (a datasets-loadable folder with its card) or dist (an installable "
                   "distribution: pyproject.toml and a built wheel). Default: from OUT's name (.tar.gz, .parquet), "
                   "else folder.")
@click.option("--name", default=None, help="Pack name (lowercase, digits, '_'). Default: from OUT.")
@click.option("--description", default="", help="One line for the card.")
@click.option("--status", "statuses", multiple=True, default=("accepted",), show_default=True,
              help="Only records of this status (repeatable).")
@click.option("--domain", "domains", multiple=True, help="Only this domain (repeatable).")
@click.option("--tag", "tags", multiple=True, help="Only records with one of these tags (repeatable).")
@click.option("--run", "run_dir", type=click.Path(exists=True, file_okay=False), default=None,
              help="Only environments this self-play run accepted; adds their iteration and regret history.")
@click.option("--iterations", default=None, metavar="N|FIRST:LAST", help="With --run: only these iterations.")
@click.option("--min-regret", type=float, default=None, help="Only environments whose last regret is at least this.")
@click.option("--version", "version", default="1.0.0", show_default=True, help="Distribution version (--format dist).")
@click.option("--no-parents", is_flag=True, help="Skip finding each environment's parent in the memory.")
@click.option("--overwrite", is_flag=True, help="Replace OUT if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def export_command(ctx: click.Context, out: str, fmt: str | None, name: str | None, description: str,
                   statuses: tuple[str, ...], domains: tuple[str, ...], tags: tuple[str, ...], run_dir: str | None,
                   iterations: str | None, min_regret: float | None, version: str, no_parents: bool, overwrite: bool,
                   as_json: bool) -> None:
    """Write designer environments of the store as a pack at OUT: modules, manifests, content hashes, validation
    reports, self-play stats, lineage, an index and a card.

    \b
    spade export my-pool/ --domain games --min-regret 0.2
    spade export my-pool.tar.gz --run runs/selfplay --iterations 3:7
    spade export my-pool-hf --format parquet
    spade export my-pool-dist --format dist     # then: pip install my-pool-dist/dist/*.whl
    """
    try:
        wanted = tuple(Status.parse(s).value for s in statuses)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--status") from None
    if iterations is not None and run_dir is None:
        raise click.UsageError("--iterations needs --run RUN_DIR")
    filters = ExportFilter(statuses=wanted, domains=domains, tags=tags, iterations=_iterations(iterations),
                           min_regret=min_regret)
    store = open_store(ctx.obj["store"])
    run = run_history(run_dir) if run_dir else None
    result = export_pack(store, Path(out), name=name or _default_name(out), fmt=fmt, description=description,
                         filters=filters, run=run, version=version, find_parents=not no_parents, overwrite=overwrite,
                         made_by={"command": "spade export", "store": store.path.name})
    summary = {"path": str(result.path), "environments": len(result.environments), "skipped": result.skipped,
               "seconds": round(result.seconds, 3), "wheel": str(result.wheel) if result.wheel else None}
    if as_json:
        click.echo(json_text(summary))
        return
    console.print(f"wrote {len(result.environments)} environment(s) to {markup(result.path)} "
                  f"in {result.seconds:.2f} s", highlight=False)
    if result.wheel:
        console.print(f"install it with: pip install {markup(result.wheel)}", highlight=False)
    for problem in result.skipped:
        err_console.print(f"[yellow]skipped:[/] {markup(problem)}", highlight=False)


@click.command("import")
@click.argument("pack")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Environments validated at once.")
@click.option("--novelty", is_flag=True, help="Also reject environments too close to ones in the store (the gate's "
              "novelty stage; off by default: a pack's pool is its author's choice).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per environment, then the summary.")
@click.pass_context
def import_command(ctx: click.Context, pack: str, workers: int, novelty: bool, as_json: bool) -> None:
    """Import the environments of PACK (a folder, .tar.gz, .parquet or an installed pack's name) into the store.

    Nothing in a pack is trusted: every module's content hash is recomputed, every environment is re-validated by
    the local gate (run in the sandbox), and accepted ones are stored with designer trust, so they only run in the
    sandbox. Exit code 0 when nothing was rejected, 1 otherwise.
    """
    store = open_store(ctx.obj["store"])
    sync_seed_environments(store)  # bundled names must be known before any pack name is checked
    opened = open_pack(pack)
    with err_console.status("validating", spinner="dots") if not as_json else _Quiet() as status:
        def progress(phase: str, done: int, total: int) -> None:
            if status is not None:
                status.update(f"{phase} {done}/{total}")

        report = import_pack(opened, store, workers=workers, novelty=novelty, progress=progress)
    register_store(ctx.obj["store"], sync_seeds=False)
    if as_json:
        for outcome in report.outcomes:
            click.echo(json_text(outcome.to_dict()))
        click.echo(json_text(report.summary()))
    else:
        table = Table(title=text(f"spade import {opened.header.name}"), title_justify="left")
        for column in ("pack id", "verdict", "local id", "stage", "why"):
            table.add_column(column, overflow="fold")
        for o in report.outcomes:
            table.add_row(text(o.pack_id), text(o.verdict, _STYLE.get(o.verdict, "")), text(o.env_id or "-"),
                          text(o.stage or "-"), text(o.reason))
        console.print(table)
        s = report.summary()
        console.print(f"{s['accepted']} accepted, {s['rejected']} rejected, {s['duplicate']} skipped as duplicates "
                      f"in {s['seconds']:.1f} s", highlight=False)
    if report.count(REJECTED):
        ctx.exit(1)


class _Quiet:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def pack_table(registry: PluginRegistry) -> Table | None:
    """``spade plugins``' second table: environment packs (data, designer trust), apart from code plugins."""
    rows = [(plugin, spec) for plugin, result in registry.collect(PACK_HOOK) for spec in result
            if isinstance(spec, PackSpec)]
    if not rows:
        return None
    table = Table(title="SPADE environment packs (data, untrusted: re-validated on import, sandboxed)")
    for column in ("pack", "distribution", "version", "offered by", "status"):
        table.add_column(column, overflow="fold")
    for plugin, spec in rows:
        table.add_row(text(spec.name), text(spec.distribution or "-"), text(spec.version or "-"), text(plugin),
                      text(f"refused: {spec.problem}" if spec.problem else f"usable: {spec.location}",
                           "red" if spec.problem else ""))
    return table
