"""Shared pack fixtures: a source store with a few designer environments (renamed copies of a bundled seed, validated
by the real gate), their stats and provenance as a self-play run leaves them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import gymnasium as gym

from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.validation.pipeline import record_outcome, validate_source
from spade_registry.store import RegistryStore

SEED = (Path(__file__).resolve().parents[2] / "plugins" / "domains" / "games" / "seeds" / "nim_vs_bot.py").read_text(
    encoding="utf-8")


def variant(name: str, note: str = "") -> str:
    """The bundled NimVersusBot seed under another ENV_SPEC name (and a distinct constant, so a distinct hash)."""
    source = SEED.replace('"name": "NimVersusBot"', f'"name": "{name}"', 1)
    assert f'"name": "{name}"' in source
    return source + f"\nVARIANT = {name!r}{note}\n"


def source_store(path: Path, names: list[str]) -> RegistryStore:
    """A store holding ``names`` as accepted designer environments with stats and designer provenance."""
    store = open_store(path)
    sync_seed_environments(store)
    for i, name in enumerate(names):
        code = variant(name)
        report = validate_source(code, store=store)
        assert report.accepted, report.message
        record_outcome(store, code, report, provenance={"source": "designer", "doc_title": f"Document {i}",
                                                       "doc_id": f"doc-{i}", "domain": "games"})
        store.update_stats(f"spade/{name}-v0", {"episodes": 6 + i, "successes": 1, "p_hint": 0.5 + i / 10,
                                                "p_nohint": 0.25, "regret": 0.25 + i / 10})
    return store


def assert_each_resets_to_text(env_ids: Iterable[str], seed: int = 1) -> None:
    """Each registered id makes, resets to a non-empty text observation and closes."""
    for env_id in env_ids:
        env = gym.make(env_id)
        try:
            obs, _ = env.reset(seed=seed)
            assert isinstance(obs, str) and obs, f"{env_id} reset to {obs!r}"
        finally:
            env.close()
