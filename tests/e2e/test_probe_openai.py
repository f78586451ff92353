"""``spade validate --probe openai:MODEL@URL``: a served model is the calibration probe, through the chat endpoint
the served designer uses (text in, text out, no local tokenizer). The canned server answers like a capable reader:
with the hint it solves the fraction sum it is shown, without the hint it solves the tasks whose first numerator is
odd (about half), and with the task hidden it guesses; so every arm's rate comes from what the server was sent."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

from canned_openai_server import CannedServer
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.typed_config import load_config
from spade_core.validation import ValidationConfig, validate_source
from spade_core.validation.calibration import ChatProbe, probe_from_spec

FRACTIONS = Path(__file__).parents[1] / "validation" / "gate" / "good" / "fraction_sum.py"
TASK = re.compile(r"Compute (\d+)/(\d+) \+ (\d+)/(\d+)")


def reader(messages: list[dict[str, str]]) -> str:
    """A capable reader of the fraction task: it reads only the conversation the probe sent."""
    assert messages[0]["role"] == "system" and "FractionSum" not in messages[0]["content"]
    shown = messages[-1]["content"]
    task = TASK.search(shown)
    if task is None:
        return "\\boxed{0}"  # the task is hidden: a guess
    a, b, c, d = (int(g) for g in task.groups())
    if "Hint: A common denominator" not in shown and a % 2 == 0:
        return "\\boxed{1/2}"  # unhinted, it gets the even-numerator tasks wrong
    total = Fraction(a, b) + Fraction(c, d)
    return f"The sum is \\boxed{{{total.numerator}/{total.denominator}}}"


def test_a_served_model_calibrates_through_the_chat_path() -> None:
    with CannedServer(reader) as server:
        probe = probe_from_spec(server.spec)
        assert isinstance(probe, ChatProbe) and getattr(probe.backend, "tokenizer", None) is None
        report = validate_source(FRACTIONS.read_text(), file=str(FRACTIONS), config=ValidationConfig(), probe=probe)
        requests = server.log.posts("/chat/completions")
    calibration = next(s for s in report.stages if s.stage == "calibration")
    assert calibration.verdict == "passed", calibration.observed
    details = calibration.details
    assert details["p_hint"] == 1.0 and details["p_hint_only"] == 0.0 and 0.0 < details["p_nohint"] < 1.0, details
    assert len(requests) == 3 * len(details["seeds"])  # one request per single-turn episode and arm
    assert all(r["model"] == server.model and r["messages"][0]["role"] == "system" for r in requests)


def test_cli_probe_and_selfplay_knob_take_a_served_model(tmp_path: Path) -> None:
    with CannedServer(reader) as server:
        result = CliRunner().invoke(cli, ["validate", str(FRACTIONS), "--json", "--probe", server.spec])
        config = load_config(SelfPlayConfig, None, [f"validation.probe={server.spec}", f"run_dir={tmp_path}"])
        assert isinstance(SelfPlay(config)._probe(), ChatProbe)
    row = json.loads(result.stdout.splitlines()[-1])
    assert result.exit_code == 0 and row["verdict"] == "accepted", row
    assert not any("calibration" in s for s in row["skipped"]), row
