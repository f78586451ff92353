"""The ``hf`` model backend: a model loaded by :mod:`spade_core.models.loading` behind :class:`HFGenerator`."""

from __future__ import annotations

from typing import Any

from spade_core.models.base import MAX_BATCH_SIZE
from spade_core.models.hf_generator import HFGenerator
from spade_core.models.loading import load_model


class HFBackend(HFGenerator):
    """Load ``path`` (a model directory or ``.gguf``; None: the embedded SmolLM2-135M-Instruct) for generation."""

    def __init__(self, path: str | None = None, *, device: str | None = None, dtype: Any = None,
                 max_batch_size: int = MAX_BATCH_SIZE) -> None:
        loaded = load_model(path, device=device, dtype=dtype)
        super().__init__(loaded.model, loaded.tokenizer, max_batch_size=max_batch_size)
        self.source = loaded.source
