"""``spade selfplay``: run self-play (or an ablation plan), resume it, stop it cleanly on a signal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from spade_core.cli.consoles import console, err_console
from spade_core.display import markup
from spade_core.selfplay.ablations import load_plan
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay, latest_checkpoint
from spade_core.selfplay.metrics import read_metrics
from spade_core.selfplay.records import ERRORS_FILE, set_aside
from spade_core.selfplay.signals import exit_status
from spade_core.typed_config import knobs, load_config


def _print_config_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``spade selfplay --help-config``: every knob of :class:`SelfPlayConfig`, one block each."""
    if not value or ctx.resilient_parsing:
        return
    for knob in knobs(SelfPlayConfig):
        click.echo(f"{knob.key}: {knob.type} = {json.dumps(knob.default)}")
        if knob.help:
            click.echo(f"    {knob.help}")
    ctx.exit()


@click.command("selfplay")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False), help="YAML config file.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override, e.g. --set agent.seeds_per_env=8")
@click.option("--run-dir", default=None, help="Where the run writes (default: runs/selfplay).")
@click.option("--iterations", type=click.IntRange(1, 1_000_000), default=None, help="Iterations to run.")
@click.option("--resume", "resume_dir", type=click.Path(exists=True, file_okay=False),
              help="Continue the run in this directory from its last finished iteration.")
@click.option("--fresh", is_flag=True, help="Start over in --run-dir: an earlier run there is moved aside to "
              "<run-dir>-<UTC time> (nothing is deleted).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Scale out with Ray: validation as Ray tasks, environments (and their sandboxes) on Ray actors. "
                   "A bare --ray starts a local Ray instance; --ray auto or --ray ray://HEAD:10001 joins a cluster "
                   "(same as --set ray.enabled=true [--set ray.address=ADDRESS]). Needs the extra: "
                   'pip install "spade-rl[ray]".')
@click.option("--ablations", "plan_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Run an ablation plan (e.g. configs/ablations.yaml) one run after another under --run-dir "
                   "(default runs/ablations); --set applies to every run. Prints the held-out comparison commands.")
@click.option("--only", default=None, metavar="NAMES", help="With --ablations: only these runs (comma-separated).")
@click.option("--help-config", is_flag=True, expose_value=False, is_eager=True, callback=_print_config_help,
              help="Print every config key (for --config files and --set) with its type, default and help, then exit.")
@click.pass_context
def selfplay_command(ctx: click.Context, config_file: str | None, overrides: tuple[str, ...], run_dir: str | None,
             iterations: int | None, resume_dir: str | None, fresh: bool, ray_address: str | None,
             plan_file: str | None, only: str | None) -> None:
    """Run self-play: the policy designs environments, plays them with and without hints, and learns from regret.

    With no arguments: a short real run on the embedded defaults (SmolLM2-135M-Instruct, the Wikipedia corpus,
    the seed pool, the reference trainer) that leaves an HTML report in the run directory.

    Several GPUs: torchrun --nproc_per_node N -m spade_core.cli.main selfplay ... (rank 0 runs the loop, every rank
    trains its share of each batch); see configs/selfplay-8gpu.yaml.

    The registry store is the run's own (RUN_DIR/registry.sqlite3) unless spade --store, $SPADE_STORE or the
    config's store key points at another.
    """
    # spade --store / $SPADE_STORE over the config file; a --set store=... over both
    extra = ([f"store={ctx.obj['store']}"] if ctx.obj.get("store") else []) + list(overrides)
    if plan_file:
        if iterations:
            extra.append(f"iterations={iterations}")
        _run_ablations(plan_file, only, extra, run_dir or "runs/ablations", fresh=fresh)
        return
    if run_dir:
        extra.append(f"run_dir={run_dir}")
    if iterations:
        extra.append(f"iterations={iterations}")
    if ray_address is not None:
        extra.append("ray.enabled=true")
        if ray_address != "local":
            extra.append(f"ray.address={ray_address}")
    # the whole tree is checked before anything heavy is imported or started: a bad value fails in well under a second
    config = load_config(SelfPlayConfig, config_file, extra) if not resume_dir else None
    from spade_core.training.data_parallel import is_follower_process

    with Progress(TextColumn("[bold]{task.fields[phase]}"), BarColumn(), TextColumn("iteration {task.completed}/"
                  "{task.total}"), TextColumn("ETA {task.fields[eta]}"), TimeElapsedColumn(), console=err_console) as bar:
        task = bar.add_task("selfplay", total=1, phase="starting", eta="?")

        def progress(phase: str, iteration: int, total: int, eta: float | None) -> None:
            bar.update(task, completed=iteration, total=total, phase=phase,
                       eta="?" if eta is None else f"{eta / 60:.1f} min")

        if resume_dir:
            run = SelfPlay.resume(resume_dir, overrides=extra, progress=progress)
        elif is_follower_process():  # a data-parallel rank > 0: it samples and trains; rank 0 owns the run directory
            assert config is not None
            SelfPlay(config).run()
            return
        else:
            assert config is not None
            target = Path(config.run_dir)
            if fresh:
                _set_aside(target)
            elif latest_checkpoint(target) is not None:
                raise click.UsageError(f"{target} already holds a run; continue it with --resume {target} "
                                       "or start over with --fresh")
            run = SelfPlay(config, progress=progress)
        try:
            report = run.run()
        except KeyboardInterrupt as exc:  # a second Ctrl-C: out now, the traceback in errors.log
            path, line = run.records.write_traceback(run.current_iteration, "run (interrupted)", exc)
            err_console.print(f"interrupted in iteration {run.current_iteration}; traceback: {path}:{line}",
                              highlight=False, markup=False)
            sys.exit(exit_status("SIGINT"))
        bar.update(task, phase="stopped" if run.stop.requested else "done")

    history = read_metrics(report.parent)
    if run.stop.requested:  # SIGTERM or Ctrl-C: the partial iteration is recorded and checkpointed
        err_console.print(_stopped_line(run.stop.reason, history, report.parent), highlight=False, markup=False,
                          soft_wrap=True)
        sys.exit(exit_status(run.stop.reason))
    for line in history[-1].summary if history else []:  # what happened to each role, and why
        console.print(markup(line), highlight=False)
    console.print(f"report: {report}", highlight=False)
    console.print(f"metrics: {report.parent / 'metrics.jsonl'}", highlight=False)


def _set_aside(run_dir: Path) -> None:
    """``--fresh``: move an earlier run out of the way, and say where it went."""
    moved = set_aside(run_dir)
    if moved is not None:
        err_console.print(f"--fresh: the earlier run in {run_dir} was moved to {moved}", highlight=False, markup=False,
                          soft_wrap=True)


def _stopped_line(reason: str | None, history: list[Any], run_dir: Path) -> str:
    """The one line a run stopped by a signal ends with: what was kept and how to go on."""
    last = history[-1] if history else None
    kept = (f"iteration {last.iteration} stopped at a turn boundary, recorded as partial in metrics.jsonl and "
            "checkpointed" if last is not None and last.partial else "stopped between iterations")
    return (f"stopped by {reason}: {kept} (errors, if any: {run_dir / ERRORS_FILE}); continue with: spade selfplay "
            f"--resume {run_dir}")


def _run_ablations(plan_file: str, only: str | None, overrides: list[str], root: str, *, fresh: bool) -> None:
    """Every run of the plan in turn (a run with a checkpoint continues from it), then the comparison recipe."""
    plan = load_plan(plan_file)
    finished: dict[str, Path] = {}
    for name in plan.select([n.strip() for n in only.split(",") if n.strip()] if only else None):
        config = plan.config(name, root=root, overrides=overrides)
        target = Path(config.run_dir)
        if fresh:
            _set_aside(target)
        err_console.print(f"ablation run {markup(name)} -> {markup(str(target))}", highlight=False)
        run = SelfPlay.resume(target, overrides=overrides) if latest_checkpoint(target) is not None else SelfPlay(config)
        run.run()
        checkpoint = latest_checkpoint(target)
        if checkpoint is not None:
            finished[name] = checkpoint / "model"
    console.print("held-out comparison (run these once the suites are installed):", highlight=False)
    for line in plan.eval_commands(root, finished):
        console.print(f"  {markup(line)}", highlight=False)
