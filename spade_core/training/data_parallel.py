"""Data-parallel training over several processes (``torchrun`` or ``accelerate launch``, one per GPU).

Rank 0 is the *driver*: it runs the whole self-play loop (designer, validation, rollouts, regret, advantages).
Every rank holds a full replica of the trainable weights (for 7B+ models: LoRA adapters on a frozen base) and its
own sampling engine (the replica itself, or a colocated vLLM engine on its GPU).

- **Generation** is spread over every rank: the driver's :class:`ShardedGenerator` sends each batch of prompts to all
  ranks, each samples its round-robin share with its own engine, and the driver reassembles the completions in order.
- **Updates**: the driver broadcasts the trajectories and advantages; every rank takes its shard of each optimiser
  step's batch, back-propagates it, and the gradients are summed across ranks before the identical optimiser step on
  every rank, so the replicas never drift. The loss is normalised by the whole step's normaliser, so the update
  equals the one-process update over the same batch (tested). A rank with a separate engine pushes its new weights
  to it and verifies the push, as one process does.

Followers (ranks > 0) run :func:`serve`: they execute the driver's commands until it stops and report every
command's outcome back, so an error on any rank (a failed push check, say) stops the driver with that rank's message
instead of leaving the group waiting. Collectives time out (``timeout_minutes``) instead of hanging when a rank dies.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import torch

from spade_core.errors import SpadeError
from spade_core.models.batch_split import merge_round_robin, share_params, with_batch_seed


class DataParallelError(SpadeError):
    """The process group could not be set up, or a command failed on one of the ranks."""


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

    def leave(self) -> None:
        """Every rank calls this last, once the group's work is done: a barrier, then the process group is destroyed,
        so no rank exits with the collective backend's threads still running (which can abort it at exit)."""
        import torch.distributed as dist

        if dist.is_initialized():
            dist.barrier()
            dist.destroy_process_group()

    def shard(self, items: Sequence[Any]) -> list[Any]:
        """This rank's share of ``items`` (round-robin, so long and short sequences spread evenly)."""
        return list(items[self.rank::self.world])

    def broadcast(self, obj: Any = None) -> Any:
        """The driver's ``obj`` on every rank (pickled; only trusted, in-process data goes through here)."""
        import torch.distributed as dist

        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, obj: Any) -> list[Any] | None:
        """Every rank's ``obj``, in rank order, on the driver (``None`` on followers)."""
        import torch.distributed as dist

        out: list[Any] | None = [None] * self.world if self.is_driver else None
        dist.gather_object(obj, out, dst=0)
        return out

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


@dataclass(frozen=True)
class _Reply:
    """One rank's outcome of a command: its value, or the error it raised (as text: it crosses processes)."""

    value: Any = None
    error: str | None = None


def _run_locally(fn: Callable[[], Any]) -> tuple[_Reply, BaseException | None]:
    try:
        return _Reply(value=fn()), None
    except Exception as exc:  # reported to the driver, which raises it with the rank's name
        return _Reply(error=f"{type(exc).__name__}: {exc}"), exc


def _generate_share(engine: Any, kind: str, inputs: Sequence[Any], params: Any, group: DataParallel) -> list[Any]:
    share = group.shard(inputs)
    if not share:
        return []
    method = engine.chat if kind == "chat" else engine.generate
    return list(method(share, share_params(params, group.rank)))


class DataParallelDriver:
    """The driver's trainer: each :meth:`update` and :meth:`load` runs on every rank, and :attr:`generator`
    samples on every rank."""

    def __init__(self, trainer: Any, group: DataParallel) -> None:
        if not group.is_driver:
            raise DataParallelError(f"rank {group.rank} is a follower; only rank 0 drives (followers call serve())")
        self.inner = trainer
        self.group = group
        self.name = trainer.name
        self._generator = ShardedGenerator(self)
        self._closed = False

    @property
    def generator(self) -> ShardedGenerator:
        return self._generator

    @property
    def step(self) -> int:
        return self.inner.step

    def run_everywhere(self, command: tuple[Any, ...], local: Callable[[], Any]) -> list[Any]:
        """Broadcast ``command``, run ``local`` here, and return every rank's value in rank order.

        Raises the driver's own error, or :class:`DataParallelError` naming each follower that failed; every rank
        has answered by then, so the group is ready for the next command."""
        self.group.broadcast(command)
        mine, exc = _run_locally(local)
        replies = self.group.gather(mine) or [mine]
        if exc is not None:
            raise exc
        failed = [f"rank {rank}: {reply.error}" for rank, reply in enumerate(replies) if reply.error]
        if failed:
            raise DataParallelError(f"{command[0]} failed on {len(failed)} of {self.group.world} ranks: "
                                    + "; ".join(failed))
        return [reply.value for reply in replies]

    def update(self, trajectories: Sequence[Any], advantages: Sequence[float]) -> dict[str, float]:
        trajectories, advantages = list(trajectories), [float(a) for a in advantages]
        metrics = self.run_everywhere(("update", trajectories, advantages),
                                      lambda: self.inner.update(trajectories, advantages))[0]
        return metrics | {"data_parallel_ranks": float(self.group.world)}

    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        """The driver writes the checkpoint; sharded weights are gathered from every rank first."""
        if not getattr(self.inner, "collective_checkpoints", False):
            return self.inner.save(directory, loop_state=loop_state)  # identical replicas: the driver's is enough
        state = dict(loop_state) if loop_state is not None else None
        return self.run_everywhere(("save", str(directory), state),
                                   lambda: self.inner.save(directory, loop_state=state))[0]

    def load(self, directory: str | Path) -> dict[str, Any]:
        return self.run_everywhere(("load", str(directory)), lambda: self.inner.load(directory))[0]

    def close(self) -> None:
        """Release the followers (they return from :func:`serve`) and close this rank's trainer; a second call does
        nothing. The group stays up (gathering sharded weights still needs it) until every rank calls
        :meth:`DataParallel.leave`."""
        if self._closed:
            return
        self._closed = True
        try:
            self.group.broadcast(("stop",))
        finally:
            self.inner.close()


class ShardedGenerator:
    """The driver's sampler under data parallelism: each batch is split round-robin over every rank's engine.

    Completions come back in the order of the prompts. A batch's sampling seed (drawn from torch's RNG when the
    caller gives none, as the engines do) is shared out so that each rank samples with a seed of its own."""

    name = "data-parallel"

    def __init__(self, driver: DataParallelDriver) -> None:
        self._driver = driver

    @property
    def local(self) -> Any:
        """This rank's own engine."""
        return self._driver.inner.generator

    @property
    def tokenizer(self) -> Any:
        return self.local.tokenizer

    def generate(self, prompts: Sequence[Sequence[int]], params: Any) -> list[Any]:
        """One completion per prompt of token ids, sampled across the ranks."""
        return self._sample("generate", [list(p) for p in prompts], params)

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: Any) -> list[Any]:
        """One completion per conversation (chat template applied by each rank's engine), sampled across the ranks."""
        return self._sample("chat", [[dict(m) for m in c] for c in conversations], params)

    def _sample(self, kind: str, inputs: list[Any], params: Any) -> list[Any]:
        if not inputs:
            return []
        params = with_batch_seed(params)
        group = self._driver.group
        shares = self._driver.run_everywhere(
            ("sample", kind, inputs, params),
            lambda: _generate_share(self.local, kind, inputs, params, group))
        return merge_round_robin(shares, len(inputs))


def serve(trainer: Any, group: DataParallel) -> int:
    """A follower's loop: run the driver's commands until it stops; returns the number of updates taken.

    Each command's outcome goes back to the driver; an error is reported there and this rank waits for the next
    command (the driver decides whether the run goes on)."""
    updates = 0
    while True:
        command = group.broadcast()
        if command[0] == "stop":
            return updates
        reply, exc = _run_locally(partial(_follow_command, trainer, group, command))
        updates += command[0] == "update" and exc is None
        group.gather(reply)


def _follow_command(trainer: Any, group: DataParallel, command: tuple[Any, ...]) -> Any:
    kind = command[0]
    if kind == "update":
        return trainer.update(command[1], command[2])
    if kind == "load":
        return trainer.load(command[1])
    if kind == "save":
        return trainer.save(command[1], loop_state=command[2])
    if kind == "sample":
        return _generate_share(trainer.generator, command[1], command[2], command[3], group)
    raise DataParallelError(f"rank {group.rank}: unknown command {kind!r} from the driver")
