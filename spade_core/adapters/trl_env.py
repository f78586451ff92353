"""SPADE environments for TRL's ``GRPOTrainer(environment_factory=...)``.

Each dataset row names its environment and seed (``env_id``, ``seed``, ``hinted``); every rollout of a GRPO group
comes from the same row, so the group (and its hinted twin, a row with the same seed) starts from the same state.
The environment's one tool, ``act``, carries the agent's action for multi-turn play; ``get_reward`` is the episode's
return for the learner seat, computed exactly as SPADE's episode runner computes it::

    from trl import GRPOConfig, GRPOTrainer
    from spade_core.adapters.trl_env import environment_factory, grpo_dataset

    ids = ["spade/TicTacToe-v1", "spade/InventoryRecount-v0"]
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=grpo_dataset(ids, seeds=range(64)),
                          environment_factory=environment_factory(ids))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from spade_core.adapters.selection import EnvSelection, selection
from spade_core.adapters.session import EpisodeSession, SessionError

INSTRUCTIONS = ("You are acting in a text environment. Call the `act` tool with your action; it returns what "
                "happens next. Keep acting until the episode ends.")
ENDED = "The episode has ended; no further action is taken."


class SpadeToolEnv:
    """One rollout's environment: ``reset(**row)`` starts the row's episode, ``act`` plays, ``get_reward`` scores."""

    def __init__(self, allowed: Sequence[str], *, hinted: bool | None = None, learner_seat: int = 0) -> None:
        self.allowed = frozenset(allowed)
        self.hinted = hinted
        self.session = EpisodeSession(learner_seat=learner_seat)

    def reset(self, *, env_id: str, seed: int, hinted: bool = False, **_row: Any) -> str:
        """Start the episode a dataset row names; returns its first observation (appended to the prompt)."""
        if env_id not in self.allowed:
            raise SessionError(f"the dataset row names {env_id!r}, which this environment factory does not serve "
                               f"(it serves {sorted(self.allowed)})")
        hint = bool(hinted) if self.hinted is None else self.hinted
        return self.session.reset(env_id, int(seed), hint=hint)

    def act(self, action: str) -> str:
        """Take your next action in the environment.

        Args:
            action: The action, exactly in the form the observation asks for.

        Returns:
            What the environment shows next, or a note that the episode has ended.
        """
        if self.session.done:
            return ENDED
        outcome = self.session.step(action)
        if outcome.done:
            verdict = "solved" if outcome.success else "not solved"
            return f"{outcome.observation}\n\nThe episode has ended ({verdict})." if outcome.observation else ENDED
        return outcome.observation

    def get_reward(self) -> float:
        """The learner seat's episode return (what SPADE's episode runner records for this episode)."""
        return float(self.session.total_reward)


def environment_factory(ids: Sequence[str] | str | None = None, *, domain: str | None = None,
                        tags: Sequence[str] = (), hinted: bool | None = None,
                        learner_seat: int = 0) -> Callable[[], SpadeToolEnv]:
    """A zero-argument factory for ``GRPOTrainer(environment_factory=...)`` over registry ids or a domain/tag filter.
    ``hinted=None`` takes each row's ``hinted`` column; ``True``/``False`` forces it (a hinted variant for regret)."""
    allowed = _resolve(ids, domain, tags)

    def make() -> SpadeToolEnv:
        return SpadeToolEnv(allowed, hinted=hinted, learner_seat=learner_seat)

    return make


def grpo_rows(ids: Sequence[str] | str | None = None, *, seeds: Iterable[int], domain: str | None = None,
              tags: Sequence[str] = (), hinted_twins: bool = False) -> list[dict[str, Any]]:
    """One row per (environment, seed), plus its hinted twin when ``hinted_twins``: the rows a GRPO dataset needs."""
    rows = []
    for env_id in _resolve(ids, domain, tags):
        for seed in seeds:
            for hinted in (False, True) if hinted_twins else (False,):
                rows.append({"prompt": [{"role": "user", "content": INSTRUCTIONS}], "env_id": env_id,
                             "seed": int(seed), "hinted": hinted})
    return rows


def grpo_dataset(ids: Sequence[str] | str | None = None, *, seeds: Iterable[int], domain: str | None = None,
                 tags: Sequence[str] = (), hinted_twins: bool = False) -> Any:
    """:func:`grpo_rows` as a ``datasets.Dataset``."""
    from datasets import Dataset

    return Dataset.from_list(grpo_rows(ids, seeds=seeds, domain=domain, tags=tags, hinted_twins=hinted_twins))


def _resolve(ids: Sequence[str] | str | None, domain: str | None, tags: Sequence[str]) -> list[str]:
    chosen = ids if isinstance(ids, EnvSelection) else selection(ids, domain=domain, tags=tags)
    return chosen.resolve()
