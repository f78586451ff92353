"""Pull one environment module out of a model's completion, however messy.

Completions wrap code in prose, emit several code blocks, or stop mid-block when they run out of tokens. The
extractor prefers the fenced block that looks like an environment (``ENV_SPEC`` and a ``class``), accepts an
unterminated final block, and falls back to unfenced code; it says precisely what it found when it finds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spade_core.errors import SpadeError

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_START = re.compile(r"^(?:from |import |ENV_SPEC\b|class |\"\"\"|'''|#)", re.MULTILINE)


class ExtractionError(SpadeError):
    """The completion holds no environment module; the message says what was found instead."""


@dataclass(frozen=True)
class Extracted:
    """The module source and how it was found (for statistics and the repair prompt)."""

    source: str
    how: str  # "fenced", "unterminated-fence", "unfenced"
    blocks_seen: int


def _score(block: str) -> int:
    return 2 * ("ENV_SPEC" in block) + ("class " in block) + ("def step" in block)


def extract_module(completion: str) -> Extracted:
    """The environment module in ``completion``; raise :class:`ExtractionError` if there is none."""
    if not isinstance(completion, str) or not completion.strip():
        raise ExtractionError("the completion is empty; answer with one ```python block holding the whole module")
    blocks = []
    for match in _FENCE.finditer(completion):
        language, body = match.group(1).lower(), match.group(2)
        closed = match.group(0).rstrip().endswith("```") and len(match.group(0)) > 6
        if language in ("", "python", "py", "python3"):
            blocks.append((body.strip("\n"), closed))
    candidates = [(b, closed) for b, closed in blocks if _score(b) >= 2]
    if candidates:
        body, closed = max(candidates, key=lambda bc: (_score(bc[0]), len(bc[0])))
        return Extracted(body.rstrip() + "\n", "fenced" if closed else "unterminated-fence", len(blocks))
    if "ENV_SPEC" in completion:
        start = _CODE_START.search(completion)
        if start is not None:
            body = completion[start.start():]
            body = body.split("```", 1)[0]
            return Extracted(body.rstrip() + "\n", "unfenced", len(blocks))
    if blocks:
        raise ExtractionError(
            f"found {len(blocks)} code block(s) but none defines ENV_SPEC and an environment class; "
            "put the whole module (ENV_SPEC + one class) in a single ```python block"
        )
    raise ExtractionError("found no code: answer with one ```python block holding ENV_SPEC and one class")
