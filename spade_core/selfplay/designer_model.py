"""Who designs in self-play: the policy being trained (the default), or a model of its own named by
``designer.model`` — any spec of the one grammar (:mod:`spade_core.models.spec`): ``openai:<model>@<url>`` for a
served model, a local path, ``tiny:<dir>``. A designer of its own is frozen: it is never trained, so the designer
update of every iteration is skipped and the metrics and report say so. This is the asymmetric set-up of a strong
fixed designer and a small learning agent.
"""

from __future__ import annotations

from dataclasses import dataclass

from spade_core.models.base import MAX_BATCH_SIZE, ModelBackend
from spade_core.models.openai_backend import OpenAIOptions
from spade_core.models.resolve import LoadOptions
from spade_core.plugins.backends import load_backend

POLICY = "policy"


@dataclass
class DesignerModel:
    """The backend the designer samples from, and whether the trainer updates it."""

    backend: ModelBackend
    spec: str  # "policy" (the trained policy) or the designer.model spec
    frozen: bool

    def skip_note(self) -> str:
        """Why there is no designer update (recorded in the iteration's metrics)."""
        return f"skipped: the designer ({self.spec}) is frozen; only the agent is trained"

    def metrics(self) -> dict[str, object]:
        return {"model": self.spec, "frozen": self.frozen}


def designer_model(spec: str | None, policy: ModelBackend, *, openai: OpenAIOptions | None = None,
                   max_batch_size: int = MAX_BATCH_SIZE) -> DesignerModel:
    """``designer.model`` resolved: ``None`` (or ``"policy"``) designs with ``policy``; anything else is loaded
    through :func:`spade_core.plugins.backends.load_backend` and frozen."""
    if spec is None or spec.strip().lower() == POLICY:
        return DesignerModel(policy, POLICY, frozen=False)
    options = LoadOptions(max_batch_size=max_batch_size, openai=openai or OpenAIOptions())
    return DesignerModel(load_backend(spec, options), spec, frozen=True)
