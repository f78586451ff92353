"""``spade``: list, inspect and play SPADE environments; manage plugins."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import gymnasium as gym
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.syntax import Syntax
from rich.table import Table

from spade_core import __version__
from spade_core.cli.eval_command import eval_command
from spade_core.cli.model_options import MODEL_HELP, openai_options, server_options
from spade_core.cli.new_command import new_command
from spade_core.cli.pack_commands import PACK_HOOK, export_command, import_command, pack_table
from spade_core.cli.serve_command import serve_command
from spade_core.corpora import open_corpus
from spade_core.designer.loop import DesignConfig, Designer
from spade_core.display import aligned_rows, clean, echo, json_text, markup, text
from spade_core.errors import PluginError, SpadeError
from spade_core.gym_bridge import open_store, register_store
from spade_core.gym_bridge.seeds import installed_seed_of, refused_seeds
from spade_core.memory import EnvironmentMemory
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.models.resolve import LoadOptions
from spade_core.plugins import get_plugins
from spade_core.plugins.backends import load_backend
from spade_core.plugins.domains import get_domain
from spade_core.plugins.hookspecs import all_hook_names
from spade_core.selfplay.ablations import load_plan
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay, latest_checkpoint
from spade_core.selfplay.metrics import read_metrics
from spade_core.selfplay.records import ERRORS_FILE, set_aside
from spade_core.selfplay.signals import exit_status
from spade_core.typed_config import knobs, load_config
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.calibration import probe_from_spec
from spade_core.validation.config import check_stage_budgets
from spade_core.validation.pipeline import record_outcome
from spade_core.validation.seed_gate import gate_plugin_seeds
from spade_core.validation.stage_hook import stage_names
from spade_registry.records import Status

console = Console()
err_console = Console(stderr=True)


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


def _store(ctx: click.Context):
    """The store, with every plugin's seeds synced (third-party ones through the gate, once per code)."""
    store = open_store(ctx.obj["store"])
    result = gate_plugin_seeds(store)
    for problem in result.problems:
        err_console.print(f"[yellow]warning:[/] {markup(problem)}", highlight=False)
    return store


def _success_text(stats: dict[str, Any]) -> str:
    episodes = stats.get("episodes", 0)
    if not episodes:
        return "-"
    return f"{stats.get('successes', 0) / episodes:.0%} of {episodes}"


@cli.command("list")
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
    found = _store(ctx).query_checked(domain=domain, status=wanted, tag=tag)
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


@cli.command()
@click.argument("env_id")
@click.option("--report", is_flag=True, help="Show the stored validation report instead of the code.")
@click.pass_context
def show(ctx: click.Context, env_id: str, report: bool) -> None:
    """Show an environment's manifest and code (ENV_ID: spade/<Name>-v<N>, #<rid> or a content hash)."""
    record = _store(ctx).get(env_id)
    console.print(f"[bold]{markup(record.env_id or f'#{record.rid}')}[/]  status={markup(record.status_label)}  "
                  f"trust={markup(record.trust.value)}  hash={markup(record.content_hash[:20])}…", highlight=False)
    if report:
        if record.report is None:
            raise SpadeError(f"{env_id} has no stored validation report (bundled seeds are accepted without one)")
        console.print_json(json_text(record.report), ensure_ascii=True)
        return
    console.print(Syntax(json_text(record.manifest, indent=2), "json", word_wrap=True))
    console.print(Syntax(clean(record.code), "python", line_numbers=True, word_wrap=True))


def _read_action(prompt: str, interactive: bool) -> str | None:
    """One action from stdin; a line ending in a backslash continues on the next line."""
    parts = []
    while True:
        if interactive:
            click.echo(prompt, nl=False)
        line = sys.stdin.readline()
        if not line:
            return "\n".join(parts) if parts else None
        line = line.rstrip("\n")
        if line.endswith("\\"):
            parts.append(line[:-1])
            continue
        parts.append(line)
        return "\n".join(parts)


@cli.command()
@click.argument("env_id")
@click.option("--seed", type=int, default=None, help="Episode seed (same seed, same task).")
@click.option("--hint", is_flag=True, help="Show the privileged hint each turn.")
@click.option("--auto", is_flag=True, help="Let the reference solver play every seat (headless demo).")
@click.option("--knob", "knobs", multiple=True, metavar="NAME=VALUE", help="Difficulty knob, e.g. --knob digits=3.")
@click.pass_context
def play(ctx: click.Context, env_id: str, seed: int | None, hint: bool, auto: bool, knobs: tuple[str, ...]) -> None:
    """Play an environment in the terminal; actions come from stdin, one per line (scriptable)."""
    _store(ctx)
    register_store(ctx.obj["store"])
    name = env_id if "/" in env_id else f"spade/{env_id}"
    kwargs = {}
    for item in knobs:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} must look like NAME=VALUE", param_hint="--knob")
        kwargs[key] = float(value) if "." in value else int(value)
    env = gym.make(name, **kwargs)
    spade_env = env.unwrapped
    players = spade_env.manifest.players
    interactive = sys.stdin.isatty() and not auto
    obs, info = env.reset(seed=seed)
    returns = [0.0] * players
    total_turns = 0
    while True:
        player = info.get("player_id", 0)
        console.rule(markup(f"turn {info.get('turn', 0)}" + (f" · player {player}" if players > 1 else "")))
        echo(obs)
        if hint:
            console.print(f"[cyan]hint:[/] {markup(spade_env.privileged_hint())}", highlight=False)
        if auto:
            action = spade_env.reference_action()
            echo(f"> {action}")
        else:
            action = _read_action(f"player {player}> " if players > 1 else "> ", interactive)
            if action is None:
                click.echo("(input ended before the episode did)")
                break
        obs, reward, terminated, truncated, info = env.step(action)
        total_turns += 1
        returns[player if players > 1 else 0] += float(reward)
        if info.get("format_error"):
            console.print(f"[yellow]format error:[/] {markup(info['format_error'])}", highlight=False)
        if terminated or truncated:
            console.rule("episode over")
            echo(obs)
            final = info.get("rewards", returns)
            summary = {"turns": total_turns, "success": info.get("success"), "terminated": terminated,
                       "truncated": truncated, "rewards": final}
            if info.get("sandbox_error") is not None:
                summary["error"] = clean(info["sandbox_error"])
            click.echo(json_text(summary))
            break
    env.close()


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


@cli.command()
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
def validate(ctx: click.Context, path: str, as_json: bool, register: bool, workers: int,
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
    store = _store(ctx)
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


@cli.command()
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
def design(ctx: click.Context, domain: str, count: int, model: str | None, corpus: str, max_repairs: int,
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
    store = _store(ctx)
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


def _print_config_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``spade selfplay --help-config``: every knob of :class:`SelfPlayConfig`, one block each."""
    if not value or ctx.resilient_parsing:
        return
    for knob in knobs(SelfPlayConfig):
        click.echo(f"{knob.key}: {knob.type} = {json.dumps(knob.default)}")
        if knob.help:
            click.echo(f"    {knob.help}")
    ctx.exit()


@cli.command()
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
def selfplay(ctx: click.Context, config_file: str | None, overrides: tuple[str, ...], run_dir: str | None,
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


def _fmt_opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


@cli.command()
@click.pass_context
def plugins(ctx: click.Context) -> None:
    """Show loaded plugins, where they come from, what they contribute, and any that failed (exit code 1 when a
    seed module cannot be found or the validation gate refused a third-party seed)."""
    registry = get_plugins()
    store = open_store(ctx.obj["store"])
    synced = gate_plugin_seeds(store, registry)
    contributions: dict[str, dict[str, list[str]]] = {}
    for hook in all_hook_names():
        if hook == PACK_HOOK:  # packs are data, listed apart from code below
            continue
        for plugin_name, result in registry.collect(hook):
            items = result.keys() if isinstance(result, dict) else [getattr(x, "name", getattr(x, "module", str(x))) for x in result]
            contributions.setdefault(plugin_name, {})[hook.removeprefix("spade_")] = list(items)
    table = Table(title="SPADE plugins")
    for column in ("plugin", "distribution", "version", "contributes"):
        table.add_column(column)
    for p in registry.loaded:
        parts = [f"{hook}: {', '.join(names)}" for hook, names in sorted(contributions.get(p.name, {}).items()) if names]
        table.add_row(text(p.name), text(p.distribution), text(p.version), text("\n".join(parts) or "-"))
    console.print(table)
    packs = pack_table(registry)
    if packs is not None:
        console.print(packs)
    for failure in registry.failures:
        err_console.print(f"[red]failed:[/] {markup(failure)}", highlight=False)
    for problem in synced.errors:
        err_console.print(f"[yellow]warning:[/] {markup(problem)}", highlight=False)
    broken = [*_broken_seed_paths(registry), *map(str, refused_seeds(store, registry))]
    for problem in broken:
        err_console.print(f"[red]failed:[/] {markup(problem)}", highlight=False)
    if broken:
        raise SystemExit(1)


def _broken_seed_paths(registry: Any) -> list[str]:
    """Every contributed seed module that cannot be found, with the plugin that named it."""
    problems = []
    for plugin_name, seeds in registry.collect("spade_seed_environments"):
        for seed in seeds:
            try:
                seed.source_path()
            except PluginError as exc:
                problems.append(f"plugin {plugin_name!r}: {exc} (check the module path in spade_seed_environments)")
    return problems


def _attach_commands() -> None:
    cli.add_command(eval_command)
    cli.add_command(serve_command)
    cli.add_command(export_command)
    cli.add_command(import_command)
    cli.add_command(new_command)


_attach_commands()


def main() -> None:
    cli(prog_name="spade")


if __name__ == "__main__":
    main()
