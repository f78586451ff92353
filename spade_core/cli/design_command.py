"""``spade design``: write environments with a model, validate and repair them, store every attempt."""

from __future__ import annotations

import click
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from spade_core.cli.consoles import console, err_console
from spade_core.cli.model_options import MODEL_HELP, openai_options, server_options
from spade_core.cli.synced_store import synced_store
from spade_core.corpora import open_corpus
from spade_core.designer.loop import DesignConfig, Designer
from spade_core.display import json_text, markup, text
from spade_core.errors import SpadeError
from spade_core.gym_bridge import register_store
from spade_core.memory import EnvironmentMemory
from spade_core.models.resolve import LoadOptions
from spade_core.plugins.backends import load_backend
from spade_core.plugins.domains import get_domain


@click.command("design")
@click.option("--domain", required=True, help="Domain to design for (`spade plugins` lists the loaded ones).")
@click.option("--n", "count", type=click.IntRange(1, 10_000), default=4, show_default=True, help="Candidates.")
@click.option("--model", default=None, help=MODEL_HELP + " Default: the embedded SmolLM2-135M-Instruct.")
@click.option("--corpus", default="wiki", show_default=True, help="Grounding corpus: wiki, jsonl:<path>, "
              "parquet:<path>, hf:<path or cached name>, or a path.")
@click.option("--max-repairs", type=click.IntRange(0, 20), default=DesignConfig.max_repairs, show_default=True)
@click.option("--max-new-tokens", type=click.IntRange(16, 131072), default=None,
              help="Token budget per module. Default: sized from the domain's worked examples, at least 4096.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--threads", type=click.IntRange(0, 512), default=1, show_default=True,
              help="torch CPU threads (0: torch's default); 1 is fastest when sandbox workers share the cores.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@server_options
@click.pass_context
def design_command(ctx: click.Context, domain: str, count: int, model: str | None, corpus: str, max_repairs: int,
           max_new_tokens: int | None, seed: int, threads: int, as_json: bool, request_timeout: float,
           max_retries: int, max_concurrency: int, stream: bool) -> None:
    """Write new environments with a model, validate and repair them, and store every attempt.

    Accepted environments are registered at once: gymnasium.make("spade/<Name>-v<N>") works right after.
    """
    try:
        get_domain(domain)  # before the model loads: an unknown domain fails at once, naming the loaded ones
    except SpadeError as exc:
        raise click.BadParameter(str(exc), param_hint="--domain") from exc
    if threads:
        import torch

        torch.set_num_threads(threads)
    store = synced_store(ctx)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err_console,
                  transient=False) as progress:
        task = progress.add_task("loading the model", total=None)
        backend = load_backend(model, LoadOptions(openai=openai_options(request_timeout, max_retries, max_concurrency,
                                                                        stream)))
        progress.update(task, description="opening the corpus and the environment memory")
        documents = open_corpus(corpus)
        memory = EnvironmentMemory(store)
        designer = Designer(backend, documents, store, memory=memory, config=DesignConfig(
            domain=domain, max_repairs=max_repairs, seed=seed, max_new_tokens=max_new_tokens))

        def report_progress(phase: str, pending: int) -> None:
            verb = "generating" if phase == "generate" else "validating"
            progress.update(task, description=f"{verb} {pending} candidate(s)")

        result = designer.design(count, progress=report_progress)
        progress.update(task, description="done")
    register_store(ctx.obj["store"], sync_seeds=False)
    summary = result.summary()
    if as_json:
        click.echo(json_text(summary))
        return
    table = Table(title=f"spade design --domain {domain} --n {count}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = [
        ("candidates", summary["candidates"]), ("accepted", summary["accepted"]),
        ("duplicates", summary["duplicates"]), ("attempts (incl. repairs)", summary["attempts"]),
        ("attempts cut at the token limit", summary["cut_at_token_limit"]),
        ("token budget per attempt", designer.max_new_tokens),
        ("repairs per accepted env", _fmt_opt(summary["repairs_per_accepted"])),
        ("tokens generated", summary["tokens"]), ("tokens per accepted env", _fmt_opt(summary["tokens_per_accepted"])),
        ("seconds", f"{summary['seconds']:.1f}"), ("seconds per accepted env", _fmt_opt(summary["seconds_per_accepted"])),
    ]
    for stage, n in sorted(summary["rejected_by_stage"].items()):
        rows.append((f"rejected at {stage}", n))
    for name, value in rows:
        table.add_row(text(name), text(value))
    console.print(table)
    for env_id in summary["accepted_ids"]:
        console.print(f"[green]accepted[/] {markup(env_id)}", highlight=False)


def _fmt_opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
