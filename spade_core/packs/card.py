"""The human-readable card of a pack (``README.md``): what is in it, how it plays, how it was made."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from spade_core.display import clean
from spade_core.packs.schema import PARQUET_FILE, PackEnvironment, PackHeader

TOP_ROWS = 20


def _cell(value: object) -> str:
    """A markdown table cell: one line, escapes visible, no column break."""
    return clean(value, keep_newlines=False).replace("|", "\\|")


def _mean(values: Sequence[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{sum(known) / len(known):.3f} (of {len(known)})" if known else "-"


def pack_card(header: PackHeader, environments: Sequence[PackEnvironment], *, dataset: bool = False) -> str:
    """The card's markdown; ``dataset`` adds the Hugging Face dataset-card header naming the parquet file."""
    lines: list[str] = []
    if dataset:
        lines += ["---", "configs:", "- config_name: default", "  data_files:", "  - split: train",
                  f"    path: {PARQUET_FILE}", "tags:", "- spade", "- reinforcement-learning", "- environments",
                  "---", ""]
    lines += [f"# SPADE environment pack `{header.name}`", "", _cell(header.description) or "(no description)", "",
              f"{len(environments)} environments, designed by a model and shared as data. **Untrusted code**: "
              "`spade import` re-validates every one with the local gate, checks its content hash, and runs it only "
              "in the sandbox.", "", "## Contents", "", "| domain | status | environments |", "|---|---|---|"]
    counts = Counter((e.domain, e.status) for e in environments)
    for (domain, status), n in sorted(counts.items()):
        lines.append(f"| {_cell(domain)} | {_cell(status)} | {n} |")
    plays = sum(e.stats.plays for e in environments)
    lines += ["", "## Self-play statistics", "",
              f"- episodes played: {plays}",
              f"- mean hinted success (p_hint): {_mean([e.stats.p_hint for e in environments])}",
              f"- mean unhinted success (p_nohint): {_mean([e.stats.p_nohint for e in environments])}",
              f"- mean regret: {_mean([e.stats.regret for e in environments])}", ""]
    ranked = sorted((e for e in environments if e.stats.regret is not None), key=lambda e: -(e.stats.regret or 0.0))
    if ranked:
        lines += [f"Highest regret (top {min(TOP_ROWS, len(ranked))}):", "",
                  "| id | domain | regret | p_hint | p_nohint | plays | iteration | document |", "|---|---|---|---|---|---|---|---|"]
        for e in ranked[:TOP_ROWS]:
            lines.append(f"| {_cell(e.pack_id)} | {_cell(e.domain)} | {e.stats.regret:.3f} | {_opt(e.stats.p_hint)} | "
                         f"{_opt(e.stats.p_nohint)} | {e.stats.plays} | {_opt(e.lineage.iteration)} | "
                         f"{_cell(e.lineage.document_title or '-')} |")
        lines.append("")
    made = header.made_by
    lines += ["## How it was made", "", f"- exported {_cell(header.created_at)} with spade {_cell(header.spade_version)}"]
    for key in sorted(made):
        lines.append(f"- {_cell(key)}: `{_cell(made[key])}`")
    lines += ["", "## Use it", "", "```", f"spade import {header.name}-pack/      # or the .tar.gz, the parquet, or "
              "an installed pack's name", "spade selfplay --set agent.pool_packs='[\"<pack>\"]'",
              "spade eval --suite pack:<pack>", "```", ""]
    return "\n".join(lines)


def _opt(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.3f}"
