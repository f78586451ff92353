"""The command-line options every model-loading command shares (``spade design``, ``spade eval``): the model spec
and how to talk to a server. Defaults are read from :class:`~spade_core.models.openai_backend.OpenAIOptions`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from spade_core.models.openai_backend import OpenAIOptions
from spade_core.models.spec import FORMS

_DEFAULTS = OpenAIOptions()
MODEL_HELP = f"Model spec: {FORMS}."


def server_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--timeout``, ``--max-retries``, ``--concurrency`` and ``--stream`` (used by ``openai:`` models)."""
    options = [
        click.option("--timeout", "request_timeout", type=click.FloatRange(min=0.001), default=_DEFAULTS.timeout_s,
                     show_default=True, help="openai: seconds to wait for an answer (for the next chunk with "
                     "--stream); a request that times out is not sent again."),
        click.option("--max-retries", "max_retries", type=click.IntRange(0, 100), default=_DEFAULTS.max_retries,
                     show_default=True, help="openai: retries of requests the server did not run (no connection, "
                     "429, 5xx)."),
        click.option("--concurrency", "max_concurrency", type=click.IntRange(1, 4096),
                     default=_DEFAULTS.max_concurrency, show_default=True, help="openai: requests in flight at once."),
        click.option("--stream/--no-stream", "stream", default=_DEFAULTS.stream, show_default=True,
                     help="openai: stream answers (the timeout then bounds the silence between chunks)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def openai_options(request_timeout: float, max_retries: int, max_concurrency: int, stream: bool) -> OpenAIOptions:
    """The :class:`OpenAIOptions` the :func:`server_options` flags describe."""
    return OpenAIOptions(timeout_s=request_timeout, max_retries=max_retries, max_concurrency=max_concurrency,
                         stream=stream)
