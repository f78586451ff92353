"""``designer.model`` resolves through the one loader: the policy by default (trained), any other spec frozen."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.models.base import SamplingParams
from spade_core.models.errors import ModelSpecError
from spade_core.models.hf_generator import HFGenerator
from spade_core.selfplay.designer_model import POLICY, designer_model


def test_the_policy_designs_unless_a_model_is_named(tiny_generator: HFGenerator, tiny_model_dir: Path) -> None:
    default = designer_model(None, tiny_generator)
    assert default.backend is tiny_generator and not default.frozen and default.spec == POLICY
    local = designer_model(f"hf:{tiny_model_dir}", tiny_generator)
    assert local.frozen and local.backend is not tiny_generator and local.spec == f"hf:{tiny_model_dir}"
    assert "frozen" in local.skip_note() and local.metrics() == {"model": f"hf:{tiny_model_dir}", "frozen": True}
    (generation,) = local.backend.chat([[{"role": "user", "content": "hi"}]], SamplingParams(max_new_tokens=3))
    assert generation.error is None


def test_a_bad_designer_model_is_a_spec_error(tiny_generator: HFGenerator) -> None:
    with pytest.raises(ModelSpecError, match="unknown model backend 'nosuch'"):
        designer_model("nosuch:x", tiny_generator)
