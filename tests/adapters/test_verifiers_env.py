"""verifiers adapter: ``load_environment()`` rolled out and scored by verifiers 0.4 itself.

verifiers 0.4 cannot share an environment with openenv 0.10, so the rollouts run in ``verifiers_check.py`` under the
interpreter of ``.venv-verifiers`` (made by ``scripts/test.sh``) and this test asserts on its JSON report: a
multi-turn game (TicTacToe, the reference solver playing the other seat) and a tool-use task (InventoryRecount), each
played by a scripted model over HTTP, score exactly what an in-process ``EpisodeSession`` replay of the same seed and
actions scores. Where that environment is missing the test skips, except under ``CI`` or ``SPADE_REQUIRE_ADAPTERS``,
where it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv-verifiers" / "bin" / "python"
CHECK = Path(__file__).with_name("verifiers_check.py")
SETUP = "python scripts/make_verifiers_env.py .venv-verifiers  (run with the interpreter that has SPADE installed)"


def verifiers_python() -> Path:
    """The verifiers environment's interpreter; skips (or fails where adapters are required) when it is missing."""
    usable = VENV_PYTHON.exists() and subprocess.run(
        [str(VENV_PYTHON), "-c", "import verifiers.v1, spade_core"], capture_output=True, timeout=300).returncode == 0
    if not usable:
        reason = f"the verifiers adapter needs {VENV_PYTHON} with verifiers 0.4 and SPADE importable: {SETUP}"
        if os.environ.get("CI") or os.environ.get("SPADE_REQUIRE_ADAPTERS"):
            pytest.fail(reason)
        pytest.skip(reason)
    return VENV_PYTHON


@pytest.fixture(scope="module")
def report() -> list[dict]:
    python = verifiers_python()
    out = subprocess.run([str(python), str(CHECK)], capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_verifiers_rollouts_score_like_the_episode_session(report: list[dict]) -> None:
    assert len(report) == 4
    for case in report:
        label = case["case"]
        assert case["episode_ok"] and case["trace_ok"], (label, case["errors"])
        assert case["errors"] == [], label
        expected = case["expected"]
        assert expected["done"] and case["outcome"]["done"], label
        # verifiers' own scoring: the task's reward and metric hooks, summed into the trace's reward
        assert case["rewards"] == {"episode_return": pytest.approx(expected["total_reward"])}, label
        assert case["reward"] == pytest.approx(expected["total_reward"]), label
        assert case["metrics"] == {"success": 1.0 if expected["success"] else 0.0}, label
        # every assistant message was one action, every user message the next observation, nothing else
        assert case["sent"] == case["actions"], label
        assert case["seen"] == expected["observations"], label
        assert case["outcome"]["turns"] == len(case["actions"]), label
        assert len(case["system"]) == 1, label


def test_both_kinds_of_environment_and_outcome_are_covered(report: list[dict]) -> None:
    by_case = {(c["case"]["env"], c["case"]["seed"]): c for c in report}
    game_ref, game_junk = by_case[("game", 0)], by_case[("game", 5)]
    tools_ref, tools_hinted = by_case[("tools", 1)], by_case[("tools", 2)]
    assert tools_hinted["case"]["hinted"] and tools_hinted["outcome"]["hinted"]
    assert game_ref["env_id"].startswith("spade/TicTacToe-v") and tools_ref["env_id"].startswith(
        "spade/InventoryRecount-v")
    assert len(game_ref["actions"]) > 1 and len(tools_ref["actions"]) > 1  # multi-turn
    assert game_junk["expected"]["total_reward"] < 0 and not game_junk["expected"]["success"]  # a lost game
    assert tools_ref["expected"]["success"] and tools_ref["expected"]["total_reward"] > 0  # a solved task


def test_the_hint_reaches_only_hinted_episodes(report: list[dict]) -> None:
    for case in report:
        hinted = case["case"]["hinted"]
        assert ("Hint:" in case["seen"][0]) is hinted, case["case"]
        assert not any("Hint:" in text for text in case["system"])


def test_load_environment_refuses_bad_selections() -> None:
    """Run in the verifiers interpreter too: an unknown id or an empty filter fails before anything runs."""
    python = verifiers_python()
    code = (
        "import pytest\n"
        "from spade_core.adapters.session import SessionError\n"
        "from spade_core.adapters.verifiers_env import load_environment\n"
        "with pytest.raises(SessionError, match='unknown environment'):\n"
        "    load_environment('spade/NoSuchEnv-v0')\n"
        "with pytest.raises(SessionError, match='no accepted environment'):\n"
        "    load_environment(domain='games', tags=['no-such-tag'])\n"
        "env = load_environment(domain='games', seeds=[3, 4], hinted_twins=True)\n"
        "rows = [(t.data.env_id, t.data.seed, t.data.hinted) for t in env.taskset]\n"
        "assert rows and all(r[0].startswith('spade/') for r in rows)\n"
        "assert [r[1:] for r in rows[:4]] == [(3, False), (3, True), (4, False), (4, True)], rows[:4]\n"
        "print('ok')\n"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.strip().endswith("ok")


def test_import_spade_core_does_not_import_verifiers() -> None:
    code = ("import sys, spade_core, spade_core.adapters.verifiers_env\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'verifiers'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
