"""verifiers' own rollout and scoring over SPADE environments, run with the verifiers environment's interpreter.

``test_verifiers_env.py`` runs this file as ``.venv-verifiers/bin/python tests/adapters/verifiers_check.py`` (verifiers
0.4 cannot share an environment with openenv 0.10) and checks its last stdout line, a JSON report. The model is a
real OpenAI-compatible HTTP server on localhost (``tests/canned_openai_server.py``, one per episode) whose answers
are scripted: the learner's moves of an episode where every seat plays the reference move (all or every other learner move is junk in
some cases). Each episode goes through ``load_environment()`` and verifiers' in-process eval path
(``env.serving()``, ``env.run_slot``: the null chat harness in a subprocess, interception, scoring hooks); the report
holds what verifiers recorded beside an in-process ``EpisodeSession`` replay of the same seed and actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
# verifiers' harness programs run through uv (installed beside verifiers in this interpreter's environment)
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

import gymnasium as gym  # noqa: E402
import verifiers.v1 as vf  # noqa: E402
from canned_openai_server import CannedServer  # noqa: E402

import spade_core  # noqa: E402,F401 - registers the bundled spade/* environments
from spade_core.adapters.session import EpisodeSession  # noqa: E402
from spade_core.adapters.verifiers_env import load_environment  # noqa: E402
from spade_core.adapters.verifiers_taskset import OUTCOME_KEY  # noqa: E402

MODEL = "scripted-reference"


def registered(name: str) -> str:
    """The id a bundled seed got in this store (its version depends on the store's history)."""
    return next(env_id for env_id in gym.registry if env_id.startswith(f"spade/{name}-v"))


def learner_moves(env_id: str, seed: int, *, junk_every: int = 0) -> list[str]:
    """Seat 0's actions in an episode where every seat plays the reference move, except that every
    ``junk_every``-th move of seat 0 is junk."""
    env = gym.make(env_id, disable_env_checker=True).unwrapped
    _, info = env.reset(seed=seed)
    mine, done = [], False
    while not done:
        action = env.reference_action()
        if info.get("player_id", 0) == 0:
            if junk_every and len(mine) % junk_every == junk_every - 1:
                action = "nonsense action"
            mine.append(action)
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    return mine


def session_replay(env_id: str, seed: int, hinted: bool, actions: list[str]) -> dict:
    """What an in-process EpisodeSession records for the same seed and actions."""
    session = EpisodeSession()
    observations = [session.reset(env_id, seed, hint=hinted)]
    for action in actions:
        outcome = session.step(action)
        if not outcome.done:
            observations.append(outcome.observation)
    result = {"total_reward": session.total_reward, "success": session.success, "done": session.done,
              "observations": observations}
    session.close()
    return result


async def play(cases: list[dict]) -> list[dict]:
    game, tools = registered("TicTacToe"), registered("InventoryRecount")
    env = load_environment([game, tools], seeds=sorted({c["seed"] for c in cases}), hinted_twins=True)
    tasks = {(t.data.env_id, t.data.seed, t.data.hinted): t for t in env.taskset}

    def scripted(actions: list[str]):
        """The answer to a conversation: the learner's next move (one per assistant turn so far)."""
        return lambda messages: actions[sum(1 for m in messages if m["role"] == "assistant")]

    planned = []
    for case in cases:
        env_id = game if case["env"] == "game" else tools
        actions = learner_moves(env_id, case["seed"], junk_every=case["junk_every"])
        expected = session_replay(env_id, case["seed"], case["hinted"], actions)
        planned.append((case, tasks[(env_id, case["seed"], case["hinted"])], actions, expected))

    with contextlib.ExitStack() as stack:  # one scripted model server per episode, all played at once
        contexts = []
        for _, _, actions, _ in planned:
            server = stack.enter_context(CannedServer(scripted(actions), model=MODEL))
            client = vf.EvalClientConfig(base_url=server.base_url, api_key_var="SPADE_SCRIPTED_KEY")
            contexts.append(vf.ModelContext(model=MODEL, client=client))
        async with env.serving():
            episodes = await asyncio.gather(*(env.run_slot(env.slots(task, 1)[0], ctx)
                                              for (_, task, _, _), ctx in zip(planned, contexts, strict=True)))

    report = []
    for (case, task, actions, expected), episode in zip(planned, episodes, strict=True):
        (trace,) = episode.traces
        report.append({
            "case": case, "env_id": task.data.env_id, "episode_ok": episode.ok, "trace_ok": trace.ok,
            "errors": [e.message for e in [*episode.errors, *trace.errors]],
            "stop": trace.stop_condition,
            "rewards": {name: r.score if r is not None else None for name, r in trace.rewards.items()},
            "reward": trace.reward, "metrics": trace.metrics, "outcome": trace.info.get(OUTCOME_KEY),
            "sent": [m.content for m in trace.messages if m.role == "assistant"],
            "seen": [m.content for m in trace.messages if m.role == "user"],
            "system": [m.content for m in trace.messages if m.role == "system"],
            "actions": actions, "expected": expected,
        })
    return report


def main() -> None:
    cases = [
        {"env": "game", "seed": 0, "hinted": False, "junk_every": 0},
        {"env": "game", "seed": 5, "hinted": False, "junk_every": 1},  # only junk: the game is lost
        {"env": "tools", "seed": 1, "hinted": False, "junk_every": 0},
        {"env": "tools", "seed": 2, "hinted": True, "junk_every": 2},
    ]
    print(json.dumps(asyncio.run(play(cases))))


if __name__ == "__main__":
    main()
