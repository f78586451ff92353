"""The self-play config tree is checked whole when it is loaded: an enum-like knob with a wrong value, an unknown
designer domain or trainer backend fails at once (before torch is imported), naming the key and the allowed values;
``spade selfplay --help-config`` prints every knob with its type, default and help."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.wiring import EMBEDDERS
from spade_core.typed_config import ConfigError, knobs, load_config

KNOBS = knobs(SelfPlayConfig)
ENUMS = {k.key: k for k in KNOBS if k.type.startswith("'")}


def test_enum_like_knobs_are_literals() -> None:
    assert {"model.generator", "agent.hint_placement", "regret.statistic", "regret.objective", "train.agent_advantage",
            "train.designer_advantage", "memory.embedder"} <= set(ENUMS)
    embedder = typing.get_type_hints(type(SelfPlayConfig().memory))["embedder"]
    assert set(typing.get_args(embedder)) == set(EMBEDDERS)  # the builder knows every allowed name


@pytest.mark.parametrize("key", sorted(ENUMS))
def test_a_wrong_enum_value_in_a_file_names_the_key_and_the_choices(key: str, tmp_path: Path) -> None:
    section, name = key.split(".")
    path = tmp_path / "run.yaml"
    path.write_text(f"{section}:\n  {name}: not-a-choice\n")
    with pytest.raises(ConfigError) as caught:
        load_config(SelfPlayConfig, path)
    message = str(caught.value)
    assert message.startswith(f"{key}: expected one of ") and "'not-a-choice'" in message
    assert all(choice in message for choice in ENUMS[key].type.split(" | "))


def test_unknown_domains_and_backends_fail_at_load() -> None:
    with pytest.raises(ConfigError, match=r"designer.domains: unknown domain\(s\) \['mth'\]; loaded: .*'math'"):
        load_config(SelfPlayConfig, None, ["designer.domains=[math, mth]"])
    with pytest.raises(ConfigError, match=r"train.backend: no trainer backend named 'nope'; installed: .*'reference'"):
        load_config(SelfPlayConfig, None, ["train.backend=nope"])


def test_the_cli_rejects_a_bad_value_before_importing_torch() -> None:
    script = ("import sys\nfrom click.testing import CliRunner\nfrom spade_core.cli.main import cli\n"
              "r = CliRunner().invoke(cli, ['selfplay', '--set', 'regret.objective=regrets'])\n"
              "print(r.exit_code, 'torch' in sys.modules)\nprint(r.output)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    first, *rest = done.stdout.splitlines()
    assert first == "1 False", done.stdout + done.stderr
    said = " ".join(" ".join(rest).split())  # the terminal may wrap the line
    assert "regret.objective: expected one of ['defended', 'regret', 'learnability', 'target', 'uniform'], got 'regrets'" in said


def test_help_config_prints_every_knob_with_type_default_and_help() -> None:
    result = CliRunner().invoke(cli, ["selfplay", "--help-config"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    heads = [line for line in lines if not line.startswith(" ")]
    assert [h.split(":")[0] for h in heads] == [k.key for k in KNOBS]
    undocumented = [k.key for k in KNOBS if not k.help]
    assert not undocumented, f"knobs without a help comment in their dataclass: {undocumented}"
    at = lines.index("model.generator: 'hf' | 'hf_engine' | 'vllm' = \"hf\"")
    assert lines[at + 1].startswith("    who samples")


def test_spade_design_rejects_an_unknown_domain_before_loading_a_model() -> None:
    result = CliRunner().invoke(cli, ["design", "--domain", "nosuch", "--model", "/no/such/model"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "Invalid value for --domain: unknown domain 'nosuch'; loaded domains: code, games, math" in said
