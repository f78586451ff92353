"""The self-play HTML report: plots and tables built only from ``metrics.jsonl`` (so every number can be checked).

One record per finished iteration; the report is rewritten after each iteration, so a run killed mid-way still
leaves a report of what it finished.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

METRICS_FILE = "metrics.jsonl"
REPORT_FILE = "report.html"


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    """Every complete line of ``metrics.jsonl`` (a line cut short by a crash is ignored)."""
    path = Path(run_dir) / METRICS_FILE
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def _figure_png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=90)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _plots(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its = [r["iteration"] for r in records]
    out = []

    fig, ax = plt.subplots(figsize=(6, 3.2))
    outcome_names = sorted({k for r in records for k in r["designer"]["outcomes"]})
    bottom = [0] * len(records)
    for name in outcome_names:
        values = [r["designer"]["outcomes"].get(name, 0) for r in records]
        ax.bar(its, values, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_xlabel("iteration")
    ax.set_ylabel("candidates")
    ax.set_title("Designer candidates by outcome (accepted or failing stage)")
    if outcome_names:
        ax.legend(fontsize=7, ncol=2)
    out.append(("Validity per stage", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    regrets = [v for r in records for v in r["regret"]["values"]]
    ax.hist(regrets or [0.0], bins=20, range=(-1, 1), color="#5566aa")
    ax.set_xlabel("regret (p_hint - p_nohint, shrunk)")
    ax.set_ylabel("environments")
    ax.set_title(f"Regret distribution ({len(regrets)} estimates)")
    out.append(("Regret distribution", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r["agent"]["success_hinted"] for r in records], marker="o", label="with hint")
    ax.plot(its, [r["agent"]["success_unhinted"] for r in records], marker="o", label="without hint")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("iteration")
    ax.set_ylabel("success rate")
    ax.set_title("Agent success")
    ax.legend()
    out.append(("Agent success", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r["pool"]["size"] for r in records], marker="o", label="pool size")
    ax.set_xlabel("iteration")
    ax.set_ylabel("accepted environments")
    ax2 = ax.twinx()
    ax2.plot(its, [r["pool"]["diversity"] for r in records], marker="s", color="#cc7722", label="diversity")
    ax2.set_ylabel("diversity (distinct names / size)")
    ax.set_title("Environment pool")
    out.append(("Pool", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(its, [r["throughput"]["tokens_per_s"] for r in records], marker="o")
    ax.set_xlabel("iteration")
    ax.set_ylabel("generated tokens / s")
    ax.set_title("Generation throughput")
    out.append(("Throughput", _figure_png(fig)))

    fig, ax = plt.subplots(figsize=(6, 3.2))
    bottom = [0.0] * len(records)
    for part in ("generate", "validate", "train", "other"):
        values = [r["time"][part] for r in records]
        ax.bar(its, values, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_xlabel("iteration")
    ax.set_ylabel("seconds")
    ax.set_title("Time split")
    ax.legend(fontsize=7)
    out.append(("Time split", _figure_png(fig)))
    return out


def _table(records: list[dict[str, Any]]) -> str:
    head = ("iteration", "candidates", "accepted", "pool", "regret mean", "success hint", "success no hint",
            "agent loss", "designer loss", "tokens/s", "seconds")
    rows = []
    for r in records:
        cells = (
            r["iteration"], r["designer"]["candidates"], r["designer"]["accepted"], r["pool"]["size"],
            f"{r['regret']['mean']:.3f}", f"{r['agent']['success_hinted']:.3f}", f"{r['agent']['success_unhinted']:.3f}",
            _fmt(r["train"].get("agent_loss")),
            "frozen" if r["designer"].get("frozen") else _fmt(r["train"].get("designer_loss")),
            f"{r['throughput']['tokens_per_s']:.1f}", f"{r['time']['total']:.1f}",
        )
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    header = "<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
    return f"<table>{header}{''.join(rows)}</table>"


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def write_report(run_dir: Path, *, title: str = "SPADE self-play run") -> Path:
    """(Re)write ``report.html`` in ``run_dir`` from its metrics; returns the path."""
    run_dir = Path(run_dir)
    records = read_metrics(run_dir)
    stage_totals: Counter[str] = Counter()
    for r in records:
        stage_totals.update(r["designer"]["outcomes"])
    parts = [
        f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}img{margin:6px}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Run directory: <code>{html.escape(str(run_dir))}</code>. {len(records)} finished iteration(s). "
        f"Every figure below is computed from <code>{METRICS_FILE}</code>.</p>",
    ]
    if records:
        parts.append("<h2>Per iteration</h2>" + _table(records))
        parts.append("<h2>Candidate outcomes, all iterations</h2><table>" + "".join(
            f"<tr><td>{html.escape(k)}</td><td>{v}</td></tr>" for k, v in sorted(stage_totals.items())) + "</table>")
        parts.append("<h2>Plots</h2>")
        for caption, png in _plots(records):
            parts.append(f"<figure style='display:inline-block'><img src='data:image/png;base64,{png}' "
                         f"alt='{html.escape(caption)}'><figcaption>{html.escape(caption)}</figcaption></figure>")
    else:
        parts.append("<p>No iteration has finished yet.</p>")
    parts.append("</body></html>")
    path = run_dir / REPORT_FILE
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text("\n".join(parts), encoding="utf-8")
    tmp.replace(path)
    return path
