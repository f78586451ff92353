"""What every trainer backend's checkpoint shares: atomic folders, RNG states, a JSON state file, loud errors.

A backend writes its own tensors (weights, optimiser, scheduler) inside :func:`atomic_checkpoint`; the folder
appears under its final name only once complete, so a run killed mid-save keeps its previous checkpoint. The RNG
states of torch (CPU and CUDA), Python and NumPy are saved with it, so a resumed run draws the same numbers.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spade_core.training.errors import CheckpointError

STATE_JSON = "trainer_state.json"
STATE_TENSORS = "trainer_state.pt"


def loop_state_json(loop_state: Mapping[str, Any] | None) -> Any:
    """``loop_state`` as plain JSON data; a :class:`CheckpointError` if it is not JSON-serialisable."""
    try:
        return json.loads(json.dumps(dict(loop_state or {})))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"loop_state must be JSON-serialisable (numbers, strings, lists, dicts): {exc}") from exc


@contextlib.contextmanager
def atomic_checkpoint(directory: str | Path) -> Iterator[Path]:
    """Yield a temporary folder to write into; on success it replaces ``directory`` in one rename."""
    target = Path(directory)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def rng_tensors() -> dict[str, Any]:
    """torch's CPU (and CUDA) RNG states, for the checkpoint's tensor file."""
    tensors: dict[str, Any] = {"torch_rng": torch.get_rng_state()}
    if torch.cuda.is_available():
        tensors["cuda_rng"] = torch.cuda.get_rng_state_all()
    return tensors


def rng_json() -> dict[str, Any]:
    """Python's and NumPy's RNG states as JSON data, for the checkpoint's state file."""
    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return {"python_rng": [version, list(internal), gauss],
            "numpy_rng": [kind, keys.tolist(), int(pos), int(has_gauss), float(cached)]}


def restore_rng(tensors: Mapping[str, Any], state: Mapping[str, Any]) -> None:
    """Restore what :func:`rng_tensors` and :func:`rng_json` saved."""
    torch.set_rng_state(tensors["torch_rng"])
    if "cuda_rng" in tensors and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(tensors["cuda_rng"])
    version, internal, gauss = state["python_rng"]
    random.setstate((version, tuple(internal), gauss))
    kind, keys, pos, has_gauss, cached = state["numpy_rng"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))


def write_state(folder: Path, tensors: Mapping[str, Any], state: Mapping[str, Any]) -> None:
    """Write the tensor file (optimiser etc. plus RNG) and the JSON state file (plus RNG) into ``folder``."""
    torch.save({**tensors, **rng_tensors()}, folder / STATE_TENSORS)
    (folder / STATE_JSON).write_text(json.dumps({**state, **rng_json()}), encoding="utf-8")


def read_state(folder: str | Path, *, backend: str, version: int, model_dir: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON state and the tensors of a checkpoint of ``backend`` in format ``version``; typed errors otherwise.

    RNG states are not restored here: call :func:`restore_rng` once the backend has loaded everything else."""
    source = Path(folder)
    for needed in (STATE_JSON, STATE_TENSORS, model_dir):
        if not (source / needed).exists():
            raise CheckpointError(f"{source}: not a {backend}-trainer checkpoint ({needed} is missing)")
    try:
        state = json.loads((source / STATE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{source / STATE_JSON}: unreadable ({exc}); the checkpoint is damaged") from exc
    if state.get("format") != version or state.get("backend") != backend:
        raise CheckpointError(f"{source}: checkpoint format {state.get('format')!r} of backend "
                              f"{state.get('backend')!r}; this is {backend!r} format {version}")
    tensors = torch.load(source / STATE_TENSORS, map_location="cpu", weights_only=True)
    return state, tensors


def load_model_weights(model: Any, folder: Path) -> None:
    """Load ``save_pretrained`` safetensors into ``model`` in place (tied weights may be absent from the files)."""
    own = model.state_dict()
    state = read_safetensors(folder)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected:
        raise CheckpointError(f"{folder}: weights for another architecture (unexpected keys {unexpected[:3]})")
    loaded_storage = {own[k].data_ptr() for k in state if k in own}
    untied = [k for k in missing if own[k].data_ptr() not in loaded_storage]
    if untied:
        raise CheckpointError(f"{folder}: checkpoint lacks weights {untied[:3]}")


def read_safetensors(folder: Path) -> dict[str, torch.Tensor]:
    """Every tensor of the ``*.safetensors`` files in ``folder``."""
    from safetensors.torch import load_file

    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        raise CheckpointError(f"{folder}: no .safetensors weights")
    state: dict[str, torch.Tensor] = {}
    for file in files:
        state.update(load_file(str(file)))
    return state
