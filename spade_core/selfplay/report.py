"""The self-play HTML report: plots, tables, the designer's candidates and example episodes, built only from
``metrics.jsonl`` (so every number can be checked) and the files it names in the run directory (code and
transcripts, shown as text).

One record per finished iteration; the report is rewritten after each iteration, so a run killed mid-way still
leaves a report of what it finished. Every string from the run (environment names, validator messages, code,
transcripts) is HTML-escaped; links point only at files inside the run directory.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from spade_core.selfplay.metrics import (
    METRICS_FILE,
    CandidateRecord,
    EnvExample,
    EpisodeRecord,
    IterationMetrics,
    TimeSplit,
    read_metrics,
)
from spade_core.selfplay.records import SMALL_WORLD_PLOT, SMALL_WORLD_RECORDS
from spade_core.smallworld.summary import REACH_LEVELS, token_table
from spade_core.smallworld.summary import table as small_world_table
from spade_core.training.regret import RegretEstimate

__all__ = ["METRICS_FILE", "REPORT_FILE", "read_metrics", "write_report"]

REPORT_FILE = "report.html"
MAX_INLINE_CHARS = 20_000
"""A transcript longer than this is cut in the page (the linked file has all of it)."""

STYLE = (
    "body{font-family:sans-serif;max-width:1150px;margin:auto;padding:0 12px;color:#222}"
    "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;"
    "vertical-align:top}th{background:#f3f3f3}img{margin:6px}.accepted{color:#17702a;font-weight:bold}"
    ".rejected{color:#a3241b;font-weight:bold}pre{white-space:pre-wrap;background:#f7f7f7;padding:6px;"
    "font-size:12px;max-height:420px;overflow:auto}details{margin:4px 0}.msg{max-width:520px;white-space:pre-wrap}"
    "h3{margin-top:28px;border-bottom:1px solid #ddd}figure{margin:4px;display:inline-block}"
)


def _esc(value: Any) -> str:
    """``value`` as HTML text: escaped, with unencodable characters (lone surrogates) replaced."""
    text = str(value).encode("utf-8", "replace").decode("utf-8")
    return html.escape(text, quote=True)


def _inside(run_dir: Path, relative: str | None) -> Path | None:
    """The file ``relative`` names, if it is a file inside ``run_dir`` (never a path that escapes it)."""
    if not relative:
        return None
    root = run_dir.resolve()
    try:
        path = (root / relative).resolve()
    except (OSError, ValueError):
        return None
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


def _link(run_dir: Path, relative: str | None, label: str) -> str:
    path = _inside(run_dir, relative)
    if path is None:
        return "-"
    href = quote(path.relative_to(run_dir.resolve()).as_posix())
    return f"<a href='{_esc(href)}'>{_esc(label)}</a>"


def _read_text(run_dir: Path, relative: str | None) -> str | None:
    path = _inside(run_dir, relative)
    if path is None:
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if len(text) > MAX_INLINE_CHARS:
        text = text[:MAX_INLINE_CHARS] + f"\n[... {len(text) - MAX_INLINE_CHARS} more characters in the file ...]"
    return text


# -- plots ---------------------------------------------------------------------------------------------------------
def _figure_png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _iteration_axis(ax: Any, its: list[int]) -> None:
    """Iterations are whole numbers: ticks only at the iterations, with room for bars on both sides."""
    from matplotlib.ticker import FixedLocator, MaxNLocator

    ax.set_xlabel("iteration")
    if len(its) <= 20:
        ax.xaxis.set_major_locator(FixedLocator(its))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(min(its) - 0.6, max(its) + 0.6)


def _plots(records: list[IterationMetrics]) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its = [r.iteration for r in records]
    out = []

    fig, ax = plt.subplots(figsize=(6, 3.2))
    outcome_names = sorted({k for r in records for k in r.designer.outcomes})
    bottom = [0] * len(records)
    for name in outcome_names:
        values = [r.designer.outcomes.get(name, 0) for r in records]
        ax.bar(its, values, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    _iteration_axis(ax, its)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("candidates")
    ax.set_title("Designer candidates by outcome (accepted or failing stage)")
    if outcome_names:
        ax.legend(fontsize=7, ncol=2)
    out.append(("Validity per stage", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    regrets = [v for r in records for v in r.regret.values]
    ax.hist(regrets or [0.0], bins=20, range=(-1, 1), color="#5566aa")
    ax.set_xlabel("regret (p_hint - p_nohint, shrunk)")
    ax.set_ylabel("environments")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"Regret distribution ({len(regrets)} estimates)")
    out.append(("Regret distribution", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r.agent.success_hinted for r in records], marker="o", label="with hint")
    ax.plot(its, [r.agent.success_unhinted for r in records], marker="o", label="without hint")
    if any(r.agent.success_hint_only is not None for r in records):
        ax.plot(its, [r.agent.success_hint_only for r in records], marker="s", linestyle="--",
                label="hint alone (no task)")
    ax.set_ylim(-0.05, 1.05)
    _iteration_axis(ax, its)
    ax.set_ylabel("success rate")
    ax.set_title("Agent success")
    ax.legend()
    out.append(("Agent success", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r.pool.size for r in records], marker="o", label="pool size")
    _iteration_axis(ax, its)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("accepted environments")
    ax2 = ax.twinx()
    ax2.plot(its, [r.pool.diversity for r in records], marker="s", color="#cc7722", label="diversity")
    ax2.set_ylabel("diversity (distinct names / size)")
    ax.set_title("Environment pool")
    out.append(("Pool", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r.throughput.tokens_per_s for r in records], marker="o")
    _iteration_axis(ax, its)
    ax.set_ylabel("generated tokens / s")
    ax.set_title("Generation throughput")
    out.append(("Throughput", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    bottom_s = [0.0] * len(records)
    for part in TimeSplit.PARTS:
        values_s = [float(getattr(r.time, part)) for r in records]
        ax.bar(its, values_s, bottom=bottom_s, label=part)
        bottom_s = [b + v for b, v in zip(bottom_s, values_s, strict=True)]
    _iteration_axis(ax, its)
    ax.set_ylabel("seconds")
    ax.set_title("Time split")
    ax.legend(fontsize=7)
    out.append(("Time split", _figure_png(fig)))
    return out


# -- tables --------------------------------------------------------------------------------------------------------
def _fmt(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _row(cells: list[str], tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>"


def _summary_table(records: list[IterationMetrics]) -> str:
    head = ["iteration", "candidates", "accepted", "pool", "regret mean", "success hint", "success no hint",
            "success hint alone", "agent loss", "designer loss", "tokens/s", "seconds"]
    rows = [_row([_esc(h) for h in head], "th")]
    for r in records:
        agent_loss = r.train.agent.loss if r.train.agent else None
        designer_loss = "frozen" if r.designer.frozen else _fmt(r.train.designer.loss if r.train.designer else None)
        cells = [r.iteration, r.designer.candidates, r.designer.accepted, r.pool.size, _fmt(r.regret.mean, 3),
                 _fmt(r.agent.success_hinted, 3), _fmt(r.agent.success_unhinted, 3),
                 _fmt(r.agent.success_hint_only, 3), _fmt(agent_loss), designer_loss,
                 _fmt(r.throughput.tokens_per_s, 1), _fmt(r.time.total, 1)]
        rows.append(_row([_esc(c) for c in cells]))
    return f"<table>{''.join(rows)}</table>"


def _candidates_table(run_dir: Path, designs: list[CandidateRecord]) -> str:
    if not designs:
        return "<p>No candidate this iteration.</p>"
    head = ["#", "domain", "name", "verdict", "first failing stage", "message", "attempts", "code"]
    rows = [_row([_esc(h) for h in head], "th")]
    for c in designs:
        verdict = f"<span class='{'accepted' if c.verdict == 'accepted' else 'rejected'}'>{_esc(c.verdict)}</span>"
        if c.env_id:
            verdict += f"<br><code>{_esc(c.env_id)}</code>"
        elif c.status != c.verdict:
            verdict += f" ({_esc(c.status)})"
        rows.append(_row([
            _esc(c.index), _esc(c.domain), _esc(c.name or "-"), verdict, _esc(c.stage or "-"),
            f"<div class='msg'>{_esc(c.message)}</div>", _esc(c.attempts),
            _link(run_dir, c.code_file, Path(c.code_file).name if c.code_file else "-"),
        ]))
    return f"<table>{''.join(rows)}</table>"


def _rates_table(per_env: dict[str, RegretEstimate]) -> str:
    """Per played environment: the success rate of each arm (hinted, unhinted, the hint alone), the regret, the
    designer's reward and the gate that set it."""
    if not per_env:
        return "<p>No environment was scored this iteration.</p>"
    head = ["environment", "success hint", "success no hint", "success hint alone", "regret", "reward", "gate"]
    rows = [_row([_esc(h) for h in head], "th")]
    for env_id, e in sorted(per_env.items()):
        rates = e.rates
        rows.append(_row([f"<code>{_esc(env_id)}</code>", *(_esc(_fmt(rates[arm], 3)) for arm in rates),
                          _esc(_fmt(e.regret, 3)), _esc(_fmt(e.reward, 3)), _esc(e.gate)]))
    return f"<table>{''.join(rows)}</table>"


def _episode(run_dir: Path, label: str, episode: EpisodeRecord | None) -> str:
    if episode is None:
        return f"<p>{_esc(label)}: no episode recorded.</p>"
    outcome = "success" if episode.success else "no success"
    rewards = ", ".join(_fmt(x, 3) for x in episode.turn_rewards) or "-"
    summary = (f"{_esc(label)}: {_esc(outcome)}, reward {_esc(_fmt(episode.reward, 3))}, "
               f"{_esc(len(episode.turn_rewards))} turn(s) (rewards {_esc(rewards)}), finish {_esc(episode.finish)}, "
               f"seed {_esc(episode.seed)} &middot; {_link(run_dir, episode.transcript_file, 'transcript file')}")
    text = _read_text(run_dir, episode.transcript_file)
    body = f"<pre>{_esc(text)}</pre>" if text is not None else "<p>(transcript file missing)</p>"
    return f"<details open><summary>{summary}</summary>{body}</details>"


def _examples(run_dir: Path, examples: list[EnvExample]) -> str:
    if not examples:
        return "<p>No environment was played to the end this iteration.</p>"
    parts = []
    for example in examples:
        parts.append(f"<p><b>{_esc(example.rank)} by regret</b>: <code>{_esc(example.env_id)}</code>, "
                     f"regret {_esc(_fmt(example.regret, 3))}</p>")
        parts.append(_episode(run_dir, "with hint", example.hinted))
        parts.append(_episode(run_dir, "without hint", example.unhinted))
    return "".join(parts)


def _small_world_section(run_dir: Path) -> str:
    """The small world's comparison (when the run played it): per arm, held-out success at the start, the end and
    averaged over the run, the exploit share of the designs, the agent tokens; per agent token (the area under
    held-out success at an equal budget, paired differences, tokens to reach each level); and its plot."""
    path = _inside(run_dir, SMALL_WORLD_RECORDS)
    if path is None:
        return ""
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))
        rows, per_token = small_world_table(runs), token_table(runs)
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as exc:
        return f"<h2>The small world</h2><p>Its records could not be read: {_esc(exc)}</p>"
    head = ["arm", "seeds", "held-out success (end)", "held-out success (mean over run)", "exploit share (first → "
            "last third)", "agent tokens", "agent episodes / iteration"]
    cells = [_row([_esc(h) for h in head], "th")]
    for row in rows:
        cells.append(_row([_esc(row["arm"]), _esc(row["seeds"]), _esc(row["held_out_end"]), _esc(row["held_out_mean"]),
                           _esc(f"{row['exploit_early']} → {row['exploit_late']}"),
                           _esc(f"{row['agent_tokens'].mean:,.0f}"), _esc(f"{row['episodes_per_iteration'].mean:.0f}")]))
    refs = [ref for ref in ("uniform", "fixed") if any(f"vs_{ref}" in row for row in per_token)]
    head = ["arm", f"area under held-out success vs agent tokens (to {per_token[0]['budget']:,.0f} tokens)",
            *(f"minus {ref} (paired)" for ref in refs), *(f"tokens to {level}" for level in REACH_LEVELS)]
    token_cells = [_row([_esc(h) for h in head], "th")]
    for row in per_token:
        reach = [f"{row[f'reach_{level}'][0].mean:,.0f} ({row[f'reach_{level}'][1]}/{row['seeds']})"
                 if row[f"reach_{level}"][1] else "not reached" for level in REACH_LEVELS]
        token_cells.append(_row([_esc(x) for x in (row["arm"], row["area"], *(row.get(f"vs_{ref}", "—") for ref in refs),
                                                   *reach)]))
    image = _inside(run_dir, SMALL_WORLD_PLOT)
    figure = "" if image is None else (
        f"<figure><img style='max-width:100%' src='data:image/png;base64,"
        f"{base64.b64encode(image.read_bytes()).decode('ascii')}' alt='small world'></figure>")
    return ("<h2>The small world: the objective at work</h2><p>Before the LLM loop, the same pipeline (design "
            "programs, validation, registry, episode runner, regret, per-role advantages, trainer) with a tiny policy "
            "that can learn in minutes: the agent's held-out success without hints, per arm.</p>"
            f"<table>{''.join(cells)}</table><p>Per agent token (every agent episode counted):</p>"
            f"<table>{''.join(token_cells)}</table>{figure}")


def _iteration_section(run_dir: Path, r: IterationMetrics) -> str:
    parts = [f"<h3>Iteration {_esc(r.iteration)}</h3>",
             f"<p>Designer: {_esc(r.designer.model)}{' (frozen)' if r.designer.frozen else ''}; "
             f"{_esc(r.designer.candidates)} candidate(s), {_esc(r.designer.accepted)} accepted, "
             f"{_esc(r.designer.attempts)} attempt(s), {_esc(r.designer.tokens)} tokens.</p>",
             _candidates_table(run_dir, r.designer.designs),
             "<h4>Played environments: success per arm and the gate applied</h4>", _rates_table(r.regret.per_env),
             "<h4>Best and worst environments by regret</h4>", _examples(run_dir, r.agent.examples)]
    if r.pool.retired:
        items = "".join(f"<li><code>{_esc(x.env_id)}</code>: {_esc(x.verdict)} ({_esc(x.reason)})</li>"
                        for x in r.pool.retired)
        parts.append(f"<h4>Retired from the pool</h4><ul>{items}</ul>")
    if r.errors:
        parts.append("<h4>Errors</h4><ul>" + "".join(f"<li><pre>{_esc(e)}</pre></li>" for e in r.errors) + "</ul>")
    return "".join(parts)


def render_report(run_dir: Path, records: list[IterationMetrics], *, title: str = "SPADE self-play run") -> str:
    """The report's HTML for ``records`` (read from the run's ``metrics.jsonl``)."""
    stage_totals: Counter[str] = Counter()
    for r in records:
        stage_totals.update(r.designer.outcomes)
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_esc(title)}</title><style>{STYLE}</style>"
        "</head><body>",
        f"<h1>{_esc(title)}</h1>",
        f"<p>Run directory: <code>{_esc(run_dir)}</code>. {len(records)} finished iteration(s). "
        f"Every number below is read from <code>{METRICS_FILE}</code>; code and transcripts are the files it "
        "names.</p>",
    ]
    parts.append(_small_world_section(run_dir))
    if records and records[-1].summary:
        parts.append(f"<h2>Per role, iteration {records[-1].iteration}</h2><ul>" + "".join(
            f"<li>{_esc(line)}</li>" for line in records[-1].summary) + "</ul>")
    if records:
        parts.append("<h2>Per iteration</h2>" + _summary_table(records))
        parts.append("<h2>Candidate outcomes, all iterations</h2><table>" + "".join(
            _row([_esc(k), _esc(v)]) for k, v in sorted(stage_totals.items())) + "</table>")
        parts.append("<h2>Plots</h2>")
        for caption, png in _plots(records):
            parts.append(f"<figure><img src='data:image/png;base64,{png}' "
                         f"alt='{_esc(caption)}'><figcaption>{_esc(caption)}</figcaption></figure>")
        parts.append("<h2>What happened</h2>")
        parts.extend(_iteration_section(run_dir, r) for r in records)
    else:
        parts.append("<p>No iteration of the LLM loop has finished yet.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(run_dir: Path, *, title: str = "SPADE self-play run") -> Path:
    """(Re)write ``report.html`` in ``run_dir`` from its metrics; returns the path."""
    run_dir = Path(run_dir)
    page = render_report(run_dir, read_metrics(run_dir), title=title)
    path = run_dir / REPORT_FILE
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return path
