"""One design token budget: defined once, sized from each domain's worked examples, read by every entry point."""

from __future__ import annotations

import math

import pytest

from spade_core.cli.design_command import design_command as design
from spade_core.designer.budget import (
    HEADROOM,
    MIN_DESIGN_TOKENS,
    design_token_budget,
    estimated_tokens,
    resolve_budget,
)
from spade_core.designer.loop import DesignConfig
from spade_core.errors import SpadeError
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.selfplay.config import DesignerSection

DOMAINS = {d.name: d for d in get_plugins().collect_flat("spade_domains") if d.worked_examples}


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_the_default_fits_a_module_as_long_as_the_longest_worked_example_and_more(domain: str) -> None:
    sources = [SeedEnvironment(m).source() for m in DOMAINS[domain].worked_examples]
    budget = design_token_budget(sources)
    assert budget >= MIN_DESIGN_TOKENS
    assert budget >= math.ceil(max(estimated_tokens(s) for s in sources) * HEADROOM)
    assert all(estimated_tokens(s) >= len(s) / 3.5 for s in sources)  # over-estimates real tokenizers' counts


def test_every_entry_point_leaves_the_budget_to_the_one_default() -> None:
    assert DesignConfig(domain="math").max_new_tokens is None and DesignerSection().max_new_tokens is None
    option = next(p for p in design.params if p.name == "max_new_tokens")
    assert option.default is None
    assert resolve_budget(None, ["x" * 30_000]) == design_token_budget(["x" * 30_000]) == 15_360
    assert resolve_budget(320) == 320
    with pytest.raises(SpadeError, match="must be >= 1"):
        resolve_budget(0)
