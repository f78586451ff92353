"""``spade selfplay --set designer.model=openai:<model>@<url>``: a frozen served designer writes the environments,
they are accepted, the tiny agent plays them and is trained, and the designer update is skipped and said so. With
the defaults no validation stage plays the agent (calibration is opt-in) and the agent plays each environment up to
its own max_turns (no fixed turn cap), so one iteration takes seconds on 2 cores with the tiny agent (the embedded
135M agent is too slow for CI; it is the same code path)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from canned_openai_server import CannedServer
from capable_completions import DOCUMENTS, by_domain
from short_selfplay import short_run_settings

from spade_core.models.tiny import build_tiny_model
from spade_core.selfplay.metrics import read_metrics
from spade_core.training.regret import ARMS
from spade_registry.store import RegistryStore


def test_a_served_designer_writes_environments_that_the_agent_plays(tmp_path: Path) -> None:
    # one document that grounds both domains' completions
    texts = [json.loads(DOCUMENTS[d]) for d in ("math", "games")]
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(json.dumps({"id": "d0", "title": "Puzzles", "text": " ".join(t["text"] for t in texts)}) + "\n")
    setup = {"root": tmp_path, "model": build_tiny_model(tmp_path / "tiny"), "corpus": corpus}
    run_dir, store = tmp_path / "run", tmp_path / "store.sqlite3"
    with CannedServer(by_domain) as server:
        settings = [*short_run_settings(setup), f"designer.model={server.spec}", "designer.domains=[math, games]",
                    "designer.candidates_per_iteration=2", "designer.max_new_tokens=null",
                    "agent.domains=[math, games]", "agent.max_env_turns=null", "agent.envs_per_iteration=2"]
        command = [sys.executable, "-m", "spade_core.cli.main", "selfplay", "--run-dir", str(run_dir),
                   "--iterations", "1", "--set", f"store={store}", *[a for s in settings for a in ("--set", s)]]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        requests = server.log.posts("/chat/completions")
    assert done.returncode == 0, done.stderr[-4000:]
    (metrics,) = read_metrics(run_dir)
    assert metrics.designer.model == server.spec and metrics.designer.frozen
    assert metrics.designer.accepted == 2 == len(requests), metrics.designer
    assert sorted(metrics.agent.envs) == sorted(metrics.designer.accepted_ids)
    assert metrics.agent.episodes == 2 * 2 * len(ARMS)  # two environments, two seeds, hinted, unhinted, hint-only
    assert metrics.train.agent is not None and metrics.train.agent.trajectories > 0
    assert metrics.train.designer is None and "frozen" in (metrics.train.designer_update or "")
    assert metrics.time.total < 600  # the acceptance bound: an iteration in minutes on 2 cores
    records = RegistryStore(store)
    for env_id in metrics.designer.accepted_ids:  # no stage played the agent: calibration was skipped
        stages = {st["stage"]: st for st in records.get(env_id).report["stages"]}
        assert stages["calibration"]["verdict"] == "skipped", stages["calibration"]
    assert all(request["max_tokens"] >= 4096 for request in requests)
    records = RegistryStore(store)
    for env_id in metrics.designer.accepted_ids:
        assert records.get(env_id).stats.get("episodes", 0) > 0
    assert "(frozen)" in (run_dir / "report.html").read_text()
