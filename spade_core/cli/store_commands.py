"""``spade list`` and ``spade show``: what the registry store holds."""

from __future__ import annotations

from typing import Any

import click
from rich.syntax import Syntax
from rich.table import Table

from spade_core.cli.consoles import console
from spade_core.cli.synced_store import synced_store
from spade_core.display import aligned_rows, clean, echo, json_text, markup, text
from spade_core.errors import SpadeError
from spade_registry.records import Status


def _success_text(stats: dict[str, Any]) -> str:
    episodes = stats.get("episodes", 0)
    if not episodes:
        return "-"
    return f"{stats.get('successes', 0) / episodes:.0%} of {episodes}"


@click.command("list")
@click.option("--domain", help="Only this domain.")
@click.option("--status", default="accepted", show_default=True, help="Only this status ('all' for every record).")
@click.option("--tag", help="Only records with this tag.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per environment, one per line.")
@click.pass_context
def list_command(ctx: click.Context, domain: str | None, status: str, tag: str | None, as_json: bool) -> None:
    """List environments in the registry store."""
    try:
        wanted = None if status == "all" else Status.parse(status)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--status") from None
    found = synced_store(ctx).query_checked(domain=domain, status=wanted, tag=tag)
    for refused in found.refused:  # one unreadable record is reported; the others are listed
        click.echo(f"record #{refused.rid} is left out: {refused.reason}", err=True)
    records = found.records
    if as_json:
        for r in records:
            click.echo(json_text({
                "id": r.env_id, "rid": r.rid, "name": r.name, "version": r.version, "domain": r.domain,
                "status": r.status_label, "trust": r.trust.value, "max_turns": r.max_turns, "players": r.players,
                "tags": list(r.tags), "stats": r.stats, "content_hash": r.content_hash,
            }))
        return
    columns = ("id", "domain", "status", "turns", "players", "success", "source")
    rows = [(r.env_id or f"#{r.rid}", r.domain, r.status_label, str(r.max_turns), str(r.players),
             _success_text(r.stats), r.trust.value) for r in records]
    if not console.is_terminal:  # a pipe or a file: whole values, never cut or wrapped to a guessed width
        for line in aligned_rows([columns, *rows]):
            echo(line)
        return
    table = Table(title=f"SPADE environments ({len(records)})")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(text(cell) for cell in row))
    console.print(table)


@click.command("show")
@click.argument("env_id")
@click.option("--report", is_flag=True, help="Show the stored validation report instead of the code.")
@click.pass_context
def show_command(ctx: click.Context, env_id: str, report: bool) -> None:
    """Show an environment's manifest and code (ENV_ID: spade/<Name>-v<N>, #<rid> or a content hash)."""
    record = synced_store(ctx).get(env_id)
    console.print(f"[bold]{markup(record.env_id or f'#{record.rid}')}[/]  status={markup(record.status_label)}  "
                  f"trust={markup(record.trust.value)}  hash={markup(record.content_hash[:20])}…", highlight=False)
    if report:
        if record.report is None:
            raise SpadeError(f"{env_id} has no stored validation report (bundled seeds are accepted without one)")
        console.print_json(json_text(record.report), ensure_ascii=True)
        return
    console.print(Syntax(json_text(record.manifest, indent=2), "json", word_wrap=True))
    console.print(Syntax(clean(record.code), "python", line_numbers=True, word_wrap=True))
