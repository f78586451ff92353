"""``spade``: the command group (``--store``, ``--version``, clean errors) with every command attached.

Each command, or group of commands on one concept, lives in a module of its own in this package.
"""

from __future__ import annotations

from typing import Any

import click

from spade_core import __version__
from spade_core.cli.consoles import err_console
from spade_core.cli.design_command import design_command
from spade_core.cli.eval_command import eval_command
from spade_core.cli.new_command import new_command
from spade_core.cli.pack_commands import export_command, import_command
from spade_core.cli.play_command import play_command
from spade_core.cli.plugins_command import plugins_command
from spade_core.cli.selfplay_command import selfplay_command
from spade_core.cli.serve_command import serve_command
from spade_core.cli.store_commands import list_command, show_command
from spade_core.cli.validate_command import validate_command
from spade_core.display import markup
from spade_core.errors import SpadeError


class SpadeGroup(click.Group):
    """Turns :class:`SpadeError` into a clean message and exit code 1 instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SpadeError as exc:
            err_console.print(f"[bold red]error:[/] {markup(exc)}", markup=True, highlight=False)
            ctx.exit(1)


@click.group(cls=SpadeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="spade")
@click.option(
    "--store", type=click.Path(dir_okay=False), envvar="SPADE_STORE", default=None,
    help="Registry store file (default: $SPADE_STORE or the user data dir).",
)
@click.pass_context
def cli(ctx: click.Context, store: str | None) -> None:
    """SPADE: self-play RL in synthetic, executable environments.

    Environments live in a registry store and are available to any RL code as gymnasium.make("spade/<Name>-v<N>").
    """
    ctx.obj = {"store": store}


def _attach_commands() -> None:
    for command in (list_command, show_command, play_command, validate_command, design_command, selfplay_command,
                    plugins_command, eval_command, serve_command, export_command, import_command, new_command):
        cli.add_command(command)


_attach_commands()


def main() -> None:
    cli(prog_name="spade")


if __name__ == "__main__":
    main()
