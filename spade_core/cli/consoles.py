"""The two consoles the ``spade`` commands print to: results on stdout, warnings and progress on stderr."""

from __future__ import annotations

from rich.console import Console

console = Console()
err_console = Console(stderr=True)
