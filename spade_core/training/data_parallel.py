"""Data-parallel training over several processes (``torchrun`` or ``accelerate launch``, one per GPU).

Rank 0 is the *driver*: it runs the whole self-play loop (designer, validation, rollouts, regret, advantages) and
owns the sampling engine. Every rank holds a full replica of the trainable weights (for 7B+ models: LoRA adapters
on a frozen base). For each update the driver broadcasts the trajectories and advantages; every rank takes its
shard of each optimiser step's batch, back-propagates it, and the gradients are summed across ranks before the
identical optimiser step on every rank, so the replicas never drift. The loss is normalised by the whole step's
normaliser, so the update equals the one-process update over the same batch (tested).

Followers (ranks > 0) run :func:`serve`: they execute the driver's commands (update, load) until it stops.
Collectives time out (``timeout_minutes``) instead of hanging when a rank dies.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from spade_core.errors import SpadeError


class DataParallelError(SpadeError):
    """The process group could not be set up, or a rank received a command it cannot run."""


def is_follower_process() -> bool:
    """True in a launched process of rank > 0 (it trains only; rank 0 owns the run directory and the output)."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1 and int(os.environ.get("RANK", "0")) > 0


@dataclass(frozen=True)
class DataParallel:
    """This process's place in the data-parallel group."""

    rank: int
    world: int

    @property
    def is_driver(self) -> bool:
        return self.rank == 0

    @classmethod
    def from_env(cls, *, timeout_minutes: float = 30.0) -> DataParallel | None:
        """The group described by ``WORLD_SIZE``/``RANK`` (set by torchrun or accelerate); ``None`` for one process."""
        world = int(os.environ.get("WORLD_SIZE", "1"))
        if world <= 1:
            return None
        import torch.distributed as dist

        for key in ("RANK", "MASTER_ADDR", "MASTER_PORT"):
            if key not in os.environ:
                raise DataParallelError(f"WORLD_SIZE={world} but {key} is not set; launch with torchrun or "
                                        "accelerate launch, which set RANK, LOCAL_RANK, MASTER_ADDR and MASTER_PORT")
        if torch.cuda.is_available():
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        if not dist.is_initialized():
            dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo",
                                    timeout=datetime.timedelta(minutes=timeout_minutes))
        return cls(rank=dist.get_rank(), world=dist.get_world_size())

    def shard(self, items: Sequence[Any]) -> list[Any]:
        """This rank's share of ``items`` (round-robin, so long and short sequences spread evenly)."""
        return list(items[self.rank::self.world])

    def broadcast(self, obj: Any = None) -> Any:
        """The driver's ``obj`` on every rank (pickled; only trusted, in-process data goes through here)."""
        import torch.distributed as dist

        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def broadcast_parameters(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Make every replica start from the driver's values (e.g. freshly initialised adapters)."""
        import torch.distributed as dist

        with torch.no_grad():
            for p in parameters:
                dist.broadcast(p.data, src=0)

    def all_reduce_gradients(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Sum every parameter's gradient across ranks (a rank with no local data contributes zeros)."""
        import torch.distributed as dist

        params = list(parameters)
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        by_dtype: dict[tuple[torch.dtype, torch.device], list[torch.Tensor]] = {}
        for p in params:
            by_dtype.setdefault((p.grad.dtype, p.grad.device), []).append(p.grad)
        for grads in by_dtype.values():
            flat = torch.cat([g.reshape(-1) for g in grads])
            dist.all_reduce(flat)
            offset = 0
            for g in grads:
                g.copy_(flat[offset:offset + g.numel()].view_as(g))
                offset += g.numel()

    def all_reduce_totals(self, totals: Mapping[str, float], *, maxima: Iterable[str] = ()) -> dict[str, float]:
        """Sum (or, for keys in ``maxima``, take the max of) scalar statistics across ranks."""
        import torch.distributed as dist

        keys = sorted(totals)
        high = set(maxima)
        sums = torch.tensor([0.0 if k in high else float(totals[k]) for k in keys], dtype=torch.float64)
        maxes = torch.tensor([float(totals[k]) if k in high else 0.0 for k in keys], dtype=torch.float64)
        if torch.cuda.is_available():
            sums, maxes = sums.cuda(), maxes.cuda()
        dist.all_reduce(sums)
        dist.all_reduce(maxes, op=dist.ReduceOp.MAX)
        return {k: float(maxes[i] if k in high else sums[i]) for i, k in enumerate(keys)}


class DataParallelDriver:
    """The driver's trainer: each :meth:`update` and :meth:`load` is broadcast to the followers first."""

    def __init__(self, trainer: Any, group: DataParallel) -> None:
        if not group.is_driver:
            raise DataParallelError(f"rank {group.rank} is a follower; only rank 0 drives (followers call serve())")
        self.inner = trainer
        self.group = group
        self.name = trainer.name

    @property
    def generator(self) -> Any:
        return self.inner.generator

    @property
    def step(self) -> int:
        return self.inner.step

    def update(self, trajectories: Sequence[Any], advantages: Sequence[float]) -> dict[str, float]:
        self.group.broadcast(("update", list(trajectories), [float(a) for a in advantages]))
        return self.inner.update(trajectories, advantages) | {"data_parallel_ranks": float(self.group.world)}

    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        return self.inner.save(directory, loop_state=loop_state)  # replicas are identical: the driver's is enough

    def load(self, directory: str | Path) -> dict[str, Any]:
        self.group.broadcast(("load", str(directory)))
        return self.inner.load(directory)

    def close(self) -> None:
        """Release the followers (they return from :func:`serve`)."""
        self.group.broadcast(("stop",))


def serve(trainer: Any, group: DataParallel) -> int:
    """A follower's loop: run the driver's commands until it stops; returns the number of updates taken."""
    updates = 0
    while True:
        command = group.broadcast()
        kind = command[0]
        if kind == "stop":
            return updates
        if kind == "update":
            trainer.update(command[1], command[2])
            updates += 1
        elif kind == "load":
            trainer.load(command[1])
        else:
            raise DataParallelError(f"rank {group.rank}: unknown command {kind!r} from the driver")
