"""The designer's token budget: how many new tokens one environment module may take (the one home of this knob).

A completion cut at the token limit is a broken module, so the default is what a full module needs: sized from the
domain's worked examples (the longest one, with room for a module half as long again), never under
:data:`MIN_DESIGN_TOKENS`. Every entry point — ``spade design --max-new-tokens``, self-play's
``designer.max_new_tokens`` and :class:`~spade_core.designer.loop.DesignConfig` — leaves the budget at ``None``
by default, which means this default. Small CPU models that cannot write a module anyway run with a smaller,
explicitly named setting (``configs/cpu-demo.yaml``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from spade_core.errors import SpadeError

MIN_DESIGN_TOKENS = 4096
"""No domain's default budget is below this."""
CHARS_PER_TOKEN = 3.0
"""A conservative estimate for Python source: the Llama, Qwen and SmolLM2 tokenizers give 3.2-3.5 characters per
token on the bundled worked examples, so dividing by 3 over-estimates the tokens a module needs."""
HEADROOM = 1.5
"""A new module may be this much longer than the longest worked example."""
ROUND_TO = 1024


def estimated_tokens(source: str) -> int:
    """Tokens ``source`` needs under a typical code tokenizer (an over-estimate; see :data:`CHARS_PER_TOKEN`)."""
    return math.ceil(len(source) / CHARS_PER_TOKEN)


def design_token_budget(worked_examples: Sequence[str] = ()) -> int:
    """The default budget for a domain whose worked examples are ``worked_examples`` (their source texts)."""
    longest = max((estimated_tokens(source) for source in worked_examples), default=0)
    needed = math.ceil(longest * HEADROOM / ROUND_TO) * ROUND_TO
    return max(MIN_DESIGN_TOKENS, needed)


def resolve_budget(configured: int | None, worked_examples: Sequence[str] = ()) -> int:
    """``configured`` when set, else :func:`design_token_budget` of the domain's examples."""
    if configured is None:
        return design_token_budget(worked_examples)
    if configured < 1:
        raise SpadeError(f"the designer's max_new_tokens must be >= 1 (or unset for the default), got {configured}")
    return configured


def cut_note(tokens: int) -> str:
    """How a completion that hit the token limit is described in its report and repair prompt."""
    return f"cut at the token limit ({tokens} tokens)"
