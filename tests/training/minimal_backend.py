"""The smallest trainer backend that keeps the whole contract: plain REINFORCE with SGD, a shared or a separate
generator (pushed to and verified after every update), checkpoints as one torch file plus JSON. A third party
writing a backend can start from this; the conformance test holds it to the same checks as the bundled ones."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from spade_core.models.hf_generator import HFGenerator
from spade_core.rollout.trajectory import Trajectory
from spade_core.training.backend import trainable_items
from spade_core.training.weight_sync import DEFAULT_TOLERANCE, push_and_verify


class MinimalTrainer:
    name = "minimal"

    def __init__(self, model: Any, tokenizer: Any, learning_rate: float, generator: Any = None) -> None:
        self.model = model.float().train()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
        self._own = HFGenerator(model, tokenizer)
        self._generator = generator if generator is not None else self._own
        self._step = 0
        self.closed = 0

    @property
    def generator(self) -> Any:
        return self._generator

    @property
    def step(self) -> int:
        return self._step

    def update(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> dict[str, float]:
        items = trainable_items(trajectories, advantages)
        probe = [list(t.token_ids) for t, _ in items]
        before = self._own.score(probe) if self._generator is not self._own else []
        self.optimizer.zero_grad()
        loss = torch.zeros(())
        for trajectory, advantage in items:
            ids = torch.tensor([trajectory.token_ids])
            logprobs = torch.log_softmax(self.model(ids).logits[0, :-1], dim=-1)
            picked = logprobs.gather(1, ids[0, 1:, None])[:, 0]
            mask = torch.tensor(trajectory.loss_mask[1:], dtype=picked.dtype)
            loss = loss - advantage * (picked * mask).sum() / max(len(items), 1)
        if items:
            loss.backward()
            self.optimizer.step()
        self._step += 1
        sync: dict[str, float] = {}
        if self._generator is not self._own:
            sync, _ = push_and_verify(self._generator, [dict(self.model.state_dict())], probe=probe, before=before,
                                      trainer_scores=self._own.score, tolerance=DEFAULT_TOLERANCE)
        return sync | {"loss": float(loss.detach()), "sequences": float(len(items))}

    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, path / "state.pt")
        (path / "state.json").write_text(json.dumps({"step": self._step, "loop_state": dict(loop_state or {})}))
        return path

    def load(self, directory: str | Path) -> dict[str, Any]:
        path = Path(directory)
        tensors = torch.load(path / "state.pt", weights_only=True)
        self.model.load_state_dict(tensors["model"])
        self.optimizer.load_state_dict(tensors["optimizer"])
        state = json.loads((path / "state.json").read_text())
        self._step = int(state["step"])
        if self._generator is not self._own:
            self._generator.sync_weights(dict(self.model.state_dict()))
        return dict(state["loop_state"])

    def close(self) -> None:
        self.closed += 1


def build_minimal_trainer(model: Any, tokenizer: Any = None, config: Mapping[str, Any] | None = None, *,
                          generator: Any = None, data_parallel: Any = None) -> MinimalTrainer:
    if data_parallel is not None:
        raise ValueError("the minimal backend trains in one process; launch it without torchrun")
    return MinimalTrainer(model, tokenizer, float((config or {}).get("learning_rate", 1e-3)), generator)
