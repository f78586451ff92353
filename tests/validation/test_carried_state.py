"""Environments that were flawed only through state carried from one episode to the next (a module-level counter
or history, a verifier that keeps the previous answer, a reset that repeats the last task after a miss). Every
episode now starts from a fresh module namespace and a fresh instance, so what carried the flaw is gone wherever
the environment runs; the gate judges them by what an episode does, and an episode played after any others is the
episode a fresh instance plays."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_support import CARRIED

from spade_core.sandbox import TimeBudget
from spade_core.validation import validate_source
from spade_core.validation.episodes import EnvFactory, constant_policy, play, reference_policy
from spade_core.validation.pipeline import sandbox_handles
from spade_registry.manifest import EnvManifest
from spade_registry.syntax import parse_source


def _manifest(source: str) -> EnvManifest:
    import ast

    tree = parse_source(source)
    spec = next(n for n in tree.body if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in n.targets))
    return EnvManifest.from_dict(ast.literal_eval(spec.value))


@pytest.mark.parametrize("path", CARRIED, ids=lambda p: p.stem)
def test_an_episode_after_others_is_the_episode_a_fresh_instance_plays(path: Path) -> None:
    source = path.read_text()
    envs = EnvFactory(_manifest(source), sandbox_handles(source, f"candidate:{path.stem}", budget=TimeBudget(120.0)),
                      f"candidate:{path.stem}")
    try:
        fresh = play(envs({}), 3, reference_policy)
        used = envs({})
        for seed in (1, 2, 3, 4):  # solved and failed episodes before it, the same seed among them
            play(used, seed, reference_policy)
            play(used, seed + 10, constant_policy)
        again = play(used, 3, reference_policy)
        assert fresh.error is None and again.error is None
        assert again.trace() == fresh.trace()
    finally:
        envs.close_all()


@pytest.mark.parametrize("path", CARRIED, ids=lambda p: p.stem)
def test_the_gate_finds_nothing_carried(path: Path) -> None:
    report = validate_source(path.read_text(), file=str(path))
    failed = {r.stage for r in report.failures}
    assert not failed & {"determinism", "fixed_answer"}, report.message
