"""``spade eval``: run a model on evaluation suites, or compare two runs.

Attach to the ``spade`` group with ``cli.add_command(eval_command)`` (``from spade_core.cli.eval_command import
eval_command``); it also works as a standalone click command.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from spade_core.cli.consoles import err_console
from spade_core.cli.model_options import MODEL_HELP, openai_options, server_options
from spade_core.display import clean, json_text, markup, text
from spade_core.errors import SpadeError
from spade_core.evaluation.results import compare_runs, comparison_table, read_run, summary_table, write_suite_run
from spade_core.evaluation.runner import DEFAULT_SAMPLING, run_suite
from spade_core.evaluation.suite import load_suite, suite_specs
from spade_core.models.openai_backend import OpenAIOptions
from spade_core.models.resolve import LoadOptions
from spade_core.models.spec import DEFAULT_MODEL
from spade_core.plugins.backends import load_backend


def _console() -> Console:
    """stdout; 120 columns when it is not a terminal (logs, pipes) so that tables do not wrap at 80."""
    probe = Console()
    return probe if probe.is_terminal else Console(width=120)


@click.command("eval")
@click.option("--model", "-m", "model", default=DEFAULT_MODEL, show_default=True, metavar="MODEL", help=MODEL_HELP)
@click.option("--suite", "-s", "suites", multiple=True, metavar="SUITE",
              help="Suite NAME or NAME:ARGUMENT (repeatable), e.g. bfcl-multi-turn-base, jsonl:gsm8k.jsonl.")
@click.option("--limit", "-n", type=click.IntRange(min=1), default=None, help="Only the first N tasks of each suite.")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Run directory for per-task JSONL and summary.json (default: eval-runs/<time>).")
@click.option("--compare", nargs=2, type=click.Path(file_okay=False), default=None, metavar="RUN_A RUN_B",
              help="Compare two run directories: per-suite delta (B - A) with a significance test.")
@click.option("--list", "list_suites", is_flag=True, help="List the available suites and exit.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens per model turn (default: the suite's own budget).")
@click.option("--temperature", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
              help="Sampling temperature (0 = greedy, reproducible).")
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed (temperature > 0).")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Sequences per forward pass for in-process models (default: the suite's preference, else 16).")
@click.option("--max-concurrent", type=click.IntRange(min=1), default=None,
              help="Tasks running at once (default: all; every round is one batched generate call).")
@click.option("--no-transcripts", is_flag=True, help="Do not store the conversations in the JSONL results.")
@click.option("--json", "as_json", is_flag=True, help="Print summaries (or the comparison) as JSON on stdout.")
@server_options
def eval_command(model: str, suites: tuple[str, ...], limit: int | None, out: str | None,
                 compare: tuple[str, str] | None, list_suites: bool, max_new_tokens: int | None, temperature: float,
                 seed: int, batch_size: int | None, max_concurrent: int | None, no_transcripts: bool,
                 as_json: bool, request_timeout: float, max_retries: int, max_concurrency: int, stream: bool) -> None:
    """Evaluate MODEL on held-out benchmark suites (BFCL v4 multi-turn, reasoning-gym, local JSONL).

    \b
    spade eval --suite bfcl-multi-turn-base --limit 20
    spade eval --model hf:./my-model --suite reasoning-gym --suite jsonl:gsm8k.jsonl --out runs/mine
    spade eval --compare runs/base runs/mine
    """
    try:
        if list_suites:
            _list()
        elif compare:
            _compare(*compare, as_json=as_json)
        else:
            if not suites:
                raise click.UsageError("give at least one --suite (see --list), or --compare RUN_A RUN_B")
            _run(model, suites, limit, out, max_new_tokens, temperature, seed, batch_size, max_concurrent,
                 not no_transcripts, as_json, openai_options(request_timeout, max_retries, max_concurrency, stream))
    except SpadeError as exc:
        raise click.ClickException(clean(exc)) from exc


def _list() -> None:
    table = Table(title="Evaluation suites")
    table.add_column("suite", no_wrap=True)
    table.add_column("argument")
    table.add_column("available")
    table.add_column("description")
    for name, spec in sorted(suite_specs().items()):
        missing = spec.missing()
        table.add_row(text(name), text(spec.argument or "-"),
                      text("yes" if not missing else f"no: {spec.install_hint}"), text(spec.description))
    _console().print(table)


def _compare(run_a: str, run_b: str, *, as_json: bool) -> None:
    a, b = read_run(run_a), read_run(run_b)
    rows = compare_runs(a, b)
    if as_json:
        click.echo(json_text([{"suite": r.suite, **r.comparison.as_dict()} for r in rows], indent=2))
        return
    console = _console()
    console.print(comparison_table(rows))
    console.print(f"A = {markup(a.path)} ({markup(a.model)})\nB = {markup(b.path)} ({markup(b.model)})\n* p < 0.05. Runs on the same tasks are "
                  "paired (exact McNemar p-value, paired-bootstrap interval); otherwise a two-proportion z-test.",
                  highlight=False)


def _run(model: str, suites: tuple[str, ...], limit: int | None, out: str | None, max_new_tokens: int | None,
         temperature: float, seed: int, batch_size: int | None, max_concurrent: int | None, keep_transcripts: bool,
         as_json: bool, server: OpenAIOptions) -> None:
    specs = suite_specs()
    loaded = [load_suite(text, limit=limit, specs=specs) for text in suites]  # fail fast, before loading the model
    out_dir = Path(out or Path("eval-runs") / time.strftime("%Y%m%d-%H%M%S"))
    err_console.print(f"loading model {markup(repr(model))} ...", highlight=False)
    backend = load_backend(model, LoadOptions(max_batch_size=batch_size or 16, openai=server))
    summaries = []
    for suite in loaded:
        sampling = replace(DEFAULT_SAMPLING, max_new_tokens=max_new_tokens or suite.max_new_tokens,
                           temperature=temperature)
        run = run_suite(backend, suite, sampling=sampling, seed=seed, max_concurrent=max_concurrent,
                        keep_transcripts=keep_transcripts, progress=True, model_name=model, batch_size=batch_size)
        write_suite_run(run, out_dir, extra={"limit": limit, "temperature": temperature, "seed": seed})
        summaries.append(run.summary)
    if as_json:
        click.echo(json_text([s.to_dict() for s in summaries], indent=2))
    else:
        console = _console()
        console.print(summary_table(summaries, title=f"spade eval --model {model}"))
        console.print("success: tasks solved, with a Wilson 95% interval; turns: mean model turns per task; format "
                      "err: model turns that were not a valid action; errors: tasks ended by an infrastructure "
                      "error (e.g. prompt longer than the context).", highlight=False)
        console.print(f"per-task results and summary.json in {markup(out_dir)}", highlight=False)
