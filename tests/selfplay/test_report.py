"""The self-play report: built only from ``metrics.jsonl`` and the files it names, every run string escaped, links
only inside the run directory, iterations on integer axes."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.selfplay.metrics import (
    METRICS_FILE,
    AgentMetrics,
    CandidateRecord,
    DesignerMetrics,
    EnvExample,
    EpisodeRecord,
    IterationMetrics,
    RegretMetrics,
    RoleUpdate,
    TimeSplit,
    TrainMetrics,
    read_metrics,
)
from spade_core.selfplay.records import RunRecords
from spade_core.selfplay.report import render_report, write_report
from spade_core.training.regret import RegretConfig, estimate_regret


class Page(HTMLParser):
    """Tags, attributes and text of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k == "href"]
        if any(k.startswith("on") for k, _ in attrs):
            self.tags.append("EVENT-HANDLER")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    return parser


def iteration(i: int, run_dir: Path, *, name: str = "Counter", message: str = "ok", env_id: str = "spade/Counter-v0",
              code_file: str | None = None, transcript: str | None = None) -> IterationMetrics:
    records = RunRecords(run_dir)
    code = code_file or records.write_design(i, 0, 0, "ENV_SPEC = {}\n", is_code=True)
    transcript_file = records.write_transcript(i, "best-hinted", transcript or "[action 0]\n42\n")
    estimate = estimate_regret([1.0, 1.0], [0.0, 1.0], RegretConfig(k=2))
    return IterationMetrics(
        iteration=i,
        designer=DesignerMetrics(candidates=2, accepted=1, outcomes={"accepted": 1, "policy": 1}, attempts=3, tokens=77,
                                 accepted_ids=[env_id], designs=[
                                     CandidateRecord(0, "math", name, "accepted", "accepted", None, message, 1, env_id,
                                                     code),
                                     CandidateRecord(1, "games", None, "rejected", "failed", "policy",
                                                     "eval is not allowed", 2, None, None)]),
        regret=RegretMetrics(values=[estimate.regret], mean=estimate.regret, per_env={env_id: estimate}),
        agent=AgentMetrics(envs=[env_id], episodes=4, success_hinted=1.0, success_unhinted=0.5, examples=[
            EnvExample("best", env_id, estimate.regret,
                       hinted=EpisodeRecord("e0", True, 7, True, 1.0, "terminated", [1.0], transcript_file),
                       unhinted=EpisodeRecord("e1", False, 7, False, 0.0, "truncated", [0.0], None))]),
        time=TimeSplit(generate=1.5, validate=0.25, train=2.0, other=0.125, total=3.875),
        train=TrainMetrics(agent=RoleUpdate(loss=0.5, trajectories=4, metrics={"optimizer_steps": 1.0})),
    )


def write_metrics(run_dir: Path, records: list[IterationMetrics]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / METRICS_FILE).write_text("".join(r.to_json() + "\n" for r in records), encoding="utf-8")


def test_metrics_round_trip_and_a_cut_line_is_skipped(tmp_path: Path) -> None:
    records = [iteration(0, tmp_path), iteration(1, tmp_path)]
    write_metrics(tmp_path, records)
    with open(tmp_path / METRICS_FILE, "a", encoding="utf-8") as handle:
        handle.write(records[0].to_json()[:40])  # a crash mid-line
    assert read_metrics(tmp_path) == records


def test_the_report_shows_candidates_examples_and_numbers_from_the_metrics(tmp_path: Path) -> None:
    records = [iteration(0, tmp_path), iteration(1, tmp_path, name="Second")]
    write_metrics(tmp_path, records)
    page = parse(write_report(tmp_path).read_text(encoding="utf-8"))
    text = " ".join(page.text)
    for shown in ("Counter", "Second", "eval is not allowed", "policy", "spade/Counter-v0", "best by regret",
                  "with hint", "without hint", "[action 0]", "3.9", "0.5000"):
        assert shown in text, shown
    assert f"{records[0].regret.mean:.3f}" in text  # the regret comes from metrics.jsonl
    assert "designs/iter-00000/c0-a0.py" in page.hrefs and "transcripts/iter-00000/best-hinted.txt" in page.hrefs
    assert text.count("Iteration ") == 2


def test_links_never_leave_the_run_directory(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    run_dir = tmp_path / "run"
    records = [iteration(0, run_dir, code_file="../secret.txt"),
               iteration(1, run_dir, code_file=str(outside)), iteration(2, run_dir, code_file="designs/missing.py")]
    write_metrics(run_dir, records)
    page = write_report(run_dir).read_text(encoding="utf-8")
    assert "secret" not in "".join(parse(page).hrefs) and "top secret" not in page
    assert "designs/missing.py" not in parse(page).hrefs


@given(st.text(min_size=1, max_size=60))
def test_every_run_string_is_escaped(hostile: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        records = [iteration(0, run_dir, name=hostile, message=hostile, env_id=f"spade/{hostile}-v0",
                             transcript=hostile)]
        records[0].errors.append(hostile)
        page = parse(render_report(run_dir, records, title=hostile))
    allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "code", "table", "tr",
               "th", "td", "span", "br", "div", "a", "figure", "img", "figcaption", "details", "summary", "pre", "b",
               "ul", "li"}
    assert set(page.tags) <= allowed
    expected = hostile.encode("utf-8", "replace").decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    assert any(expected in chunk.replace("\r\n", "\n").replace("\r", "\n") for chunk in page.text) or not expected


@pytest.mark.parametrize("count", [1, 3, 25])
def test_iterations_are_plotted_on_integer_ticks(count: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from spade_core.selfplay.report import _iteration_axis

    its = list(range(count))
    fig, ax = plt.subplots()
    ax.bar(its, [1] * count)
    _iteration_axis(ax, its)
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    plt.close(fig)
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert ax.get_xlim()[0] < 0 and ax.get_xlim()[1] > count - 1


def test_metrics_lines_are_plain_json(tmp_path: Path) -> None:
    """``metrics.jsonl`` stays readable without SPADE: one JSON object per line with the documented sections."""
    write_metrics(tmp_path, [iteration(0, tmp_path)])
    line = json.loads((tmp_path / METRICS_FILE).read_text().splitlines()[0])
    assert {"iteration", "designer", "regret", "agent", "pool", "throughput", "time", "train", "errors"} <= set(line)
    assert line["designer"]["designs"][1]["stage"] == "policy"
