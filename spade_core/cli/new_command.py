"""``spade new``: write a new plugin package from a scaffold (:mod:`spade_core.scaffold`)."""

from __future__ import annotations

from pathlib import Path

import click

from spade_core.display import echo
from spade_core.plugins.domains import loaded_domains
from spade_core.scaffold import write_domain_plugin


@click.group("new")
def new_command() -> None:
    """Write a new plugin package that installs, lists, validates and passes its own tests unchanged."""


@new_command.command("domain")
@click.argument("name")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=None,
              help="Where to write the package (default: ./spade-NAME; it must not exist or be empty).")
def new_domain(name: str, directory: str | None) -> None:
    """A domain plugin for domain NAME: pyproject with the entry point, a DomainSpec, one seed and its tests."""
    target = Path(directory) if directory is not None else Path(f"spade-{name.replace('_', '-')}")
    written = write_domain_plugin(name, target, taken=frozenset(loaded_domains()))
    echo(f"wrote {len(written)} files to {target}/")
    for path in written:
        echo(f"  {path.relative_to(target)}")
    echo(f"next: pip install -e {target} && spade plugins && (cd {target} && python -m pytest)")
