"""Fully sharded data parallelism (PyTorch FSDP2) for training models that do not fit one device as a replica.

With ``sharding="fsdp"`` every rank keeps only its slice of each weight, gradient and AdamW moment, so full
fine-tuning memory per GPU is about 16 bytes x parameters / ranks (fp32 weights, gradients and two moments) plus
activations. Each decoder layer (the model's ``_no_split_modules``) is its own shard group, gathered just in time for
its forward and backward, so at most one layer is whole at a time beyond the root's (embeddings, final norm, head).

Every forward and backward is a collective: all ranks must run the same number of them in the same order. The
trainer therefore pads a rank's share of an optimiser step with zero-weight micro-batches, scores probe batches on
every rank, and gathers full weights (for the sampling engine or a checkpoint) on every rank at once. The gradients are
*summed* across ranks (divide factor 1), as in the replicated mode, so the update equals the one-process update.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import torch

from spade_core.errors import SpadeError


class ShardingError(SpadeError):
    """A model could not be sharded across the data-parallel group, or a sharded state does not fit it."""


def shard_model(model: torch.nn.Module, world: int, device: torch.device | str | None = None) -> torch.nn.Module:
    """Shard ``model`` in place over the ``world`` ranks of the initialised default process group; returns it.

    Every rank ends up with its shards of the same weights on ``device`` (default: this rank's GPU when there is
    one, else the CPU). Where they come from:

    - rank 0 holds the real weights: they are shared out from rank 0, tensor by tensor; other ranks may pass the
      architecture with its weights on the meta device;
    - every rank passes weights on the meta device (``load_model(..., weights=False)``): each tensor is read from the
      safetensors files in the model's ``config.name_or_path`` by rank 0 and scattered, one tensor at a time, so no
      process ever holds a whole copy of the model."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import FSDPModule, fully_shard

    if not dist.is_initialized() or dist.get_world_size() != world:
        raise ShardingError(f"FSDP needs the process group of {world} ranks to be initialised first "
                            "(launch with torchrun or accelerate launch)")
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())  # this rank's GPU (set from LOCAL_RANK)
    rank = dist.get_rank()
    box = [any(p.is_meta for p in model.parameters()) if rank == 0 else None]
    dist.broadcast_object_list(box, src=0)
    from_files = bool(box[0])  # rank 0 has no real weights either: read them from the checkpoint files
    whole = model.state_dict() if rank == 0 and not from_files else {}  # references to rank 0's tensors
    buffers = {name: b.detach().clone() for name, b in model.named_buffers() if not b.is_meta}
    mesh = init_device_mesh(device.type, (world,))
    layer_types = set(getattr(model, "_no_split_modules", None) or ())
    layers = [m for m in model.modules() if type(m).__name__ in layer_types]
    if not layers:
        raise ShardingError(f"{type(model).__name__} names no decoder-layer class (_no_split_modules), so it cannot "
                            "be sharded layer by layer; use sharding='replicate'")
    for layer in layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    if any(p.is_meta for p in model.parameters()) or any(b.is_meta for b in model.buffers()):
        model.to_empty(device=device)  # storage for this rank's shards (and buffers); filled below
    with torch.no_grad():
        for name, buffer in model.named_buffers():
            if name in buffers:
                buffer.copy_(buffers[name].to(buffer.device))
    if from_files:
        _scatter_from_files(model, _weights_folder(model) if rank == 0 else None, device)
    else:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

        set_model_state_dict(model, whole, options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True,
                                                                    strict=False))
    with torch.no_grad():
        for buffer in model.buffers():  # non-persistent buffers (rotary frequencies): rank 0's, everywhere
            local = buffer.to(device)
            dist.broadcast(local, src=0)
            buffer.copy_(local)
    for module in model.modules():
        if isinstance(module, FSDPModule):
            module.set_gradient_divide_factor(1.0)  # sum, like the replicated mode: the loss is already normalised
            module.set_force_sum_reduction_for_comms(True)  # a plain SUM, which every backend (gloo too) supports
    return model


def _weights_folder(model: torch.nn.Module) -> Path:
    """The local folder of safetensors a meta-device model was built from (``config.name_or_path``)."""
    name = getattr(getattr(model, "config", None), "name_or_path", "") or ""
    folder = Path(name)
    if not name or not folder.is_dir() or not any(folder.glob("*.safetensors")):
        raise ShardingError(f"rank 0's model has its weights on the meta device and its config names no local folder "
                            f"of .safetensors files ({name!r}); build it with load_model(path, weights=False) from a "
                            "model folder, or give rank 0 the real weights")
    return folder


def _tied_names(model: torch.nn.Module) -> dict[str, list[str]]:
    """Each parameter name with every name of the same parameter (an output head tied to the embeddings has two)."""
    aliases: dict[int, list[str]] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        aliases.setdefault(id(parameter), []).append(name)
    return {name: names for names in aliases.values() for name in names}


def _file_sources(model: torch.nn.Module, names_in_files: set[str]) -> dict[str, str | None]:
    """For each state-dict entry of ``model``, the checkpoint name to read it from (itself, or the weight it is tied
    to), or None when the files have neither."""
    tied = _tied_names(model)
    return {key: next((n for n in tied.get(key, [key]) if n in names_in_files), None) for key in model.state_dict()}


def can_stream_weights(model: torch.nn.Module, folder: str | Path) -> bool:
    """Whether the safetensors in ``folder`` name every weight of ``model`` (so FSDP can stream them from the files
    instead of rank 0 loading the whole model); reads only the files' headers."""
    from safetensors import safe_open

    names: set[str] = set()
    for path in sorted(Path(folder).glob("*.safetensors")):
        with safe_open(str(path), framework="pt", device="cpu") as handle:
            names.update(handle.keys())
    return bool(names) and all(source is not None for source in _file_sources(model, names).values())


def _scatter_from_files(model: torch.nn.Module, folder: Path | None, device: torch.device) -> None:
    """Fill every rank's shards with the tensors rank 0 reads from ``folder``, one tensor at a time."""
    import torch.distributed as dist
    from safetensors import safe_open
    from torch.distributed.tensor import DTensor, distribute_tensor

    with ExitStack() as files:
        where: dict[str, Any] = {}
        if folder is not None:  # rank 0
            for path in sorted(folder.glob("*.safetensors")):
                handle = files.enter_context(safe_open(str(path), framework="pt", device="cpu"))
                where.update(dict.fromkeys(handle.keys(), handle))
        state = model.state_dict()
        sources = _file_sources(model, set(where))
        box = [sorted(k for k, v in sources.items() if v is None) if folder is not None else None]
        dist.broadcast_object_list(box, src=0)
        if box[0]:
            raise ShardingError(f"the safetensors in {folder or 'the model folder'} lack weights of this model, e.g. "
                                f"{box[0][:3]}; they must use the model's own parameter names")
        tied = _tied_names(model)
        filled: set[str] = set()
        with torch.no_grad():
            for key, value in state.items():
                if any(name in filled for name in tied.get(key, ())):
                    continue  # a tied head shares the embeddings' storage: read and scattered once
                filled.add(key)
                if folder is not None:
                    whole = where[sources[key]].get_tensor(sources[key]).to(device=device, dtype=value.dtype)
                else:
                    whole = torch.empty(value.shape, dtype=value.dtype, device=device)
                if isinstance(value, DTensor):
                    value.to_local().copy_(distribute_tensor(whole, value.device_mesh, value.placements,
                                                             src_data_rank=0).to_local())
                else:
                    dist.broadcast(whole, src=0)
                    value.copy_(whole)


def full_tensor(value: torch.Tensor) -> torch.Tensor:
    """The whole tensor behind a shard (a collective for a sharded one); any other tensor as it is."""
    from torch.distributed.tensor import DTensor

    return value.full_tensor() if isinstance(value, DTensor) else value


def save_states(model: torch.nn.Module, optimizer: torch.optim.Optimizer | None) -> tuple[dict[str, Any], Any]:
    """Whole model and optimiser states on rank 0's CPU (empty elsewhere); all ranks call it together."""
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        get_model_state_dict,
        get_optimizer_state_dict,
    )

    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    weights = get_model_state_dict(model, options=options)
    optim = get_optimizer_state_dict(model, optimizer, options=options) if optimizer is not None else None
    return weights, optim


def load_states(model: torch.nn.Module, weights: Mapping[str, torch.Tensor],
                optimizer: torch.optim.Optimizer | None = None, optimizer_state: Any = None) -> None:
    """Load whole states (as :func:`save_states` or ``save_pretrained`` wrote them) into the sharded ``model``.

    A weight may be absent when it shares its storage with one that is present (a tied output head)."""
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        set_model_state_dict,
        set_optimizer_state_dict,
    )

    tied = _tied_names(model)
    expected = set(model.state_dict())
    unexpected = sorted(set(weights) - expected)
    missing = sorted(k for k in expected - set(weights) if not any(n in weights for n in tied.get(k, ())))
    if unexpected or missing:
        raise ShardingError(f"the saved weights do not fit this model (unexpected {unexpected[:3]}, missing "
                            f"{missing[:3]})")
    set_model_state_dict(model, dict(weights), options=StateDictOptions(full_state_dict=True, strict=False))
    if optimizer is not None and optimizer_state is not None:
        set_optimizer_state_dict(model, optimizer, optimizer_state, options=StateDictOptions(full_state_dict=True))
