"""``spade validate``: run the validation gate on environment modules and print (or record) each report."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from spade_core.cli.consoles import console
from spade_core.cli.model_options import MODEL_HELP
from spade_core.cli.synced_store import synced_store
from spade_core.display import json_text, markup, text
from spade_core.errors import SpadeError
from spade_core.gym_bridge import register_store
from spade_core.gym_bridge.seeds import installed_seed_of
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.calibration import probe_from_spec
from spade_core.validation.config import check_stage_budgets
from spade_core.validation.pipeline import record_outcome
from spade_core.validation.stage_hook import stage_names


def _candidate_files(path: str) -> list[Path]:
    target = Path(path)
    if target.is_dir():
        files = sorted(p for p in target.glob("*.py") if not p.name.startswith("_"))
        if not files:
            raise click.UsageError(f"{path} contains no .py candidates")
        return files
    if not target.is_file():
        raise click.UsageError(f"{path} does not exist")
    return [target]


def _stage_budgets(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, float]:
    """``--stage-budget NAME=SECONDS`` values as ``ValidationConfig.stage_budget_s``, checked against the stages in
    effect."""
    budgets: dict[str, float] = {}
    for value in values:
        name, sep, seconds = value.partition("=")
        try:
            budgets[name.strip()] = float(seconds)
        except ValueError:
            raise click.BadParameter(f"{value!r} must look like NAME=SECONDS (e.g. hint=120)", ctx, param) from None
        if not sep:
            raise click.BadParameter(f"{value!r} must look like NAME=SECONDS (e.g. hint=120)", ctx, param)
    try:
        check_stage_budgets(budgets, stage_names())
    except ValueError as exc:
        raise click.BadParameter(str(exc).removeprefix("ValidationConfig.stage_budget_s: "), ctx, param) from None
    return budgets


_VERDICT_STYLE = {"passed": "green", "failed": "bold red", "skipped": "dim", "not_run": "dim"}


@click.command("validate")
@click.argument("path", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="One JSON object per candidate (file, verdict, stage, message).")
@click.option("--register", is_flag=True, help="Record every outcome in the store; accepted ones get an id.")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Candidates validated at once.")
@click.option("--document", "document_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The grounding document (text file) the candidates claim to draw on; without it grounding is "
              "reported as skipped.")
@click.option("--probe", "probe_spec", default=None, metavar="MODEL",
              help="A capable probe model (" + MODEL_HELP + ") that plays a few seeds unhinted, hinted and hint-only; "
              "without it hint leaks in unknown encodings and facts only the hint gives go unchecked.")
@click.option("--stage-budget", "stage_budgets", multiple=True, metavar="NAME=SECONDS", callback=_stage_budgets,
              help="A stage's wall-clock budget (repeatable), overriding the one it declares "
              "(ValidationConfig.stage_budget_s): its work stops there and the stage fails.")
@click.pass_context
def validate_command(ctx: click.Context, path: str, as_json: bool, register: bool, workers: int,
             document_file: str | None, probe_spec: str | None, stage_budgets: dict[str, float]) -> None:
    """Validate designer-format environment modules (a FILE or every .py in a DIR).

    Exit code 0 only if every candidate is accepted; 1 if any is rejected; 2 on a usage error.
    """
    files = _candidate_files(path)
    probe = None
    if probe_spec is not None:
        try:
            probe = probe_from_spec(probe_spec)
        except (SpadeError, OSError) as exc:
            raise click.UsageError(f"--probe {probe_spec}: {exc}") from exc
    store = synced_store(ctx)
    sources = [(str(f), f.read_text(encoding="utf-8", errors="surrogateescape")) for f in files]
    document = (Path(document_file).read_text(encoding="utf-8", errors="replace")
                if document_file is not None else None)
    # the registry's environments (bundled seeds included) are what novelty compares with; an installed seed's own
    # file is validated as that seed (not as a duplicate of itself)
    reports = validate_many(sources, workers=workers, store=store, document=document, memory=BehaviourIndex(store),
                            probe=probe, config=ValidationConfig(stage_budget_s=stage_budgets),
                            installed_seeds=[installed_seed_of(source) for _, source in sources])
    if register:
        for (_, source), report in zip(sources, reports, strict=True):
            record_outcome(store, source, report, provenance={"source": "spade validate", "file": report.file})

        register_store(ctx.obj["store"])
    for report in reports:
        if as_json:
            data = report.to_dict()
            click.echo(json_text({k: data[k] for k in ("file", "verdict", "status", "stage", "message", "skipped",
                                                         "env_id", "seconds")}))
            continue
        table = Table(title=text(report.file), title_justify="left")
        for column in ("stage", "verdict", "observed", "s"):
            table.add_column(column, overflow="fold")
        for stage in report.stages:
            style = _VERDICT_STYLE.get(stage.verdict, "")
            table.add_row(text(stage.stage), text(stage.verdict, style), text(stage.observed), f"{stage.seconds:.3f}")
        console.print(table)
        if report.accepted:
            where = f" as {markup(report.env_id)}" if report.env_id else ""
            skipped = report.skipped
            note = f" with {len(skipped)} stage{'s' if len(skipped) != 1 else ''} skipped" if skipped else ""
            console.print(f"[bold green]ACCEPTED[/]{where}{note}", highlight=False)
            for stage in skipped:
                console.print(text(f"  skipped {stage.stage}: {stage.observed}"), highlight=False)
        else:
            console.print(f"[bold red]REJECTED ({markup(report.status)})[/] at stage {markup(report.failed_stage)}",
                          highlight=False)
            console.print(text(report.message), highlight=False)
    if not all(r.accepted for r in reports):
        ctx.exit(1)
