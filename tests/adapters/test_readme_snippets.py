"""The adapters' README snippets run as written (the OpenEnv one against a real ``spade serve`` app on localhost, the
verifiers one in verifiers' own environment)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def snippet(heading: str) -> str:
    """The first Python block after the paragraph that starts with ``heading``."""
    text = README.read_text()
    start = text.index(heading)
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)


def test_trl_snippet_runs(capsys):
    exec(compile(snippet("**TRL**"), "README:TRL", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.strip()


def test_openenv_snippet_runs(capsys):
    pytest.importorskip("openenv", reason="spade serve needs openenv (pip install 'spade-rl[openenv]'); CI installs it")
    from test_openenv_server import start

    from spade_core.adapters.openenv_server import ServeConfig
    from spade_core.adapters.selection import selection

    code = snippet("**OpenEnv**")
    env_id = next(i for i in selection(domain="games").resolve() if i.startswith("spade/TowerOfHanoi-v"))
    for running in start(ServeConfig(env_ids=tuple(selection(domain="games").resolve()))):
        code = code.replace("http://127.0.0.1:8000", running.url).replace("spade/TowerOfHanoi-v0", env_id)
        exec(compile(code, "README:OpenEnv", "exec"), {})
    printed = capsys.readouterr().out
    assert "Hint:" in printed and "Move budget" in printed


def test_verifiers_snippet_runs():
    """As written, under verifiers' own environment (it cannot share one with openenv): one task per (environment,
    seed), each with its hinted twin. Its commented-out rollout is what ``verifiers_check.py`` runs against a
    scripted server."""
    from test_verifiers_env import verifiers_python

    python = verifiers_python()
    out = subprocess.run([str(python), "-c", snippet("**verifiers**")], capture_output=True, text=True, timeout=300,
                         cwd=README.parent)
    assert out.returncode == 0, out.stderr[-4000:]
    tasks = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert [(seed, hinted) for _, seed, hinted in tasks] == [(s, h) for s in range(4) for h in (False, True)]
    assert all(env_id.startswith("spade/TowerOfHanoi-v") for env_id, _, _ in tasks)
