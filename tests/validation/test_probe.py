"""The probe model's three arms (unhinted, hinted, hint-only) through the whole gate.

The semantic classes (a hint that carries the answer in an encoding no decoder reads, a fact only the hint gives)
pass every model-free stage; a capable probe rejects them. The probe here is a scripted policy that reads what it is
shown, as a capable model would: it decodes an octal tally, adds a fee it was told, and solves about half the tasks
on its own. A real (tiny, random) model goes through the CLI's ``--probe``: it solves nothing, so its report
carries the three rates and an "impossible" verdict (a weak probe rejects everything, which is why it is opt-in).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.contract.env import HINT_OPTION
from spade_core.validation import ProbeThresholds, ValidationConfig, validate_source
from spade_core.validation.probe import HIDDEN_TASK, UNCHECKED

TIDE = Path(__file__).parent / "invariants_corpus" / "good" / "tide_height.py"

TEMPLATE = '''
import re

ENV_SPEC = {
    "name": "NAME",
    "domain": "math",
    "description": "A small counting or pricing question about a harbour.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"largest": {"min": 20, "max": 90, "default": 60, "description": "largest factor"}},
    "grounding": "Harbour logistics: crates of tins and ferry tickets.",
    "tags": ["arithmetic"],
}


class NAME:
    def __init__(self, largest=60):
        self.largest = largest
        self.a = self.b = self.k = 0

    def reset(self, rng, options):
        self.a, self.b, self.k = rng.randint(12, self.largest), rng.randint(12, self.largest), rng.randint(1, 3)
        return TASK, {}

    def step(self, action):
        found = re.findall(r"\\\\boxed\\{(-?\\d+)\\}", action)
        if not found:
            return "Reply \\\\boxed{n}.", 0.0, True, False, {"success": False, "format_error": "expected \\\\boxed{n}"}
        ok = int(found[-1]) == ANSWER
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        return "\\\\boxed{" + str(ANSWER) + "}"
'''


def environment(name: str, task: str, answer: str, hint: str) -> str:
    return (TEMPLATE.replace("NAME", name).replace("TASK", task).replace("ANSWER", answer)
            .replace("HINT", hint))


CRATES = 'f"A crate holds {self.a} layers of {self.b} tins. How many tins? Reply \\\\boxed{{n}}."'
FERRY = ('f"{self.a} people take the ferry at {self.b} each, and a dock fee of {self.k} is added once. What do '
         'they pay? Reply \\\\boxed{{n}}."')
HIDDEN_FEE = ('f"{self.a} people take the ferry at {self.b} each, plus the dock fee. What do they pay? Reply '
              '\\\\boxed{{n}}."')
ENVIRONMENTS = {
    "octal_tally": environment("OctalTally", CRATES, "self.a * self.b",
                               '"The harbour master\'s tally, in octal: " + format(self.a * self.b, "o")'),
    "crates": environment("Crates", CRATES, "self.a * self.b", '"Multiply the layers by the tins in a layer."'),
    "hidden_fee": environment("HiddenFee", HIDDEN_FEE, "self.a * self.b + self.k",
                              '"The dock fee is " + str(self.k) + "."'),
    "stated_fee": environment("StatedFee", FERRY, "self.a * self.b + self.k",
                              '"Multiply first, then add the fee once."'),
}


def capable_reader(env: Any, obs: str, info: dict[str, Any]) -> str:
    """Reads the hint when shown one (an octal number, a fee); solves the task text itself on about half the seeds
    (when the first number is even); with the task hidden it has only the hint."""
    hint = info.get(HINT_OPTION) if isinstance(info.get(HINT_OPTION), str) else ""
    octal = re.search(r"octal: ([0-7]+)", hint)
    if octal:
        return f"\\boxed{{{int(octal.group(1), 8)}}}"
    if obs == HIDDEN_TASK:
        return "\\boxed{0}"
    numbers = [int(n) for n in re.findall(r"\d+", obs)]
    a, b = numbers[0], numbers[1]
    fee = int(re.search(r"fee is (\d+)", hint).group(1)) if "fee is" in hint else numbers[2] if len(numbers) > 2 \
        and "fee of" in obs else 0
    if hint or a % 2 == 0:
        return f"\\boxed{{{a * b + fee}}}"
    return "\\boxed{1}"


CONFIG = ValidationConfig(probe=ProbeThresholds(episodes=8))


@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_the_model_free_gate_passes_the_semantic_classes(name: str) -> None:
    report = validate_source(ENVIRONMENTS[name], file=f"{name}.py")
    assert report.accepted, report.message
    skipped = {s.stage: s.observed for s in report.skipped}
    assert all(what in skipped["calibration"] for what in UNCHECKED), skipped


def test_a_hint_read_without_the_task_is_a_leak() -> None:
    report = validate_source(ENVIRONMENTS["octal_tally"], config=CONFIG, probe=capable_reader)
    assert report.failed_stage == "calibration", report.message
    assert "from the hint alone" in report.message and "hint-only 100%" in report.message
    rates = report.stages[-1].details
    assert rates["p_hint_only"] == 1.0 and rates["p_hint"] == 1.0 and 0 < rates["p_nohint"] < 1


def test_a_fact_only_the_hint_gives_is_the_only_way_in() -> None:
    report = validate_source(ENVIRONMENTS["hidden_fee"], config=CONFIG, probe=capable_reader)
    assert report.failed_stage == "calibration" and report.status == "impossible", report.message
    assert "the hint is the only way in" in report.message and "unhinted 0%" in report.message


@pytest.mark.parametrize("name", ["crates", "stated_fee"])
def test_good_twins_pass_the_probe(name: str) -> None:
    report = validate_source(ENVIRONMENTS[name], config=CONFIG, probe=capable_reader)
    assert report.accepted, report.message
    details = report.stages[-1].details
    assert details["p_hint"] == 1.0 and details["p_hint_only"] == 0.0 and 0 < details["p_nohint"] < 1


def test_cli_probe_with_a_real_tiny_model(tiny_model_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(TIDE), "--json", "--probe", str(tiny_model_dir)])
    row = json.loads(result.stdout.splitlines()[-1])
    assert row["stage"] == "calibration" and row["status"] == "impossible", row
    assert re.search(r"unhinted \d+%, hinted 0%, hint-only \d+% over \d+ seeds", row["message"]), row["message"]
    bad = CliRunner().invoke(cli, ["validate", str(TIDE), "--probe", "openai:"])
    assert bad.exit_code == 2 and "--probe openai:" in bad.output


def test_selfplay_validation_probe_knob_loads_any_model_spec(tiny_model_dir: Path, tmp_path: Path) -> None:
    from spade_core.selfplay.config import SelfPlayConfig
    from spade_core.selfplay.loop import SelfPlay
    from spade_core.typed_config import load_config
    from spade_core.validation.calibration import AgentProbe

    assert SelfPlay(load_config(SelfPlayConfig, None, [f"run_dir={tmp_path / 'a'}"]))._probe() is None
    config = load_config(SelfPlayConfig, None, [f"validation.probe={tiny_model_dir}", f"run_dir={tmp_path / 'b'}"])
    run = SelfPlay(config)
    probe = run._probe()
    assert isinstance(probe, AgentProbe) and run._probe() is probe  # loaded once
