"""Pull one environment module out of a model's completion, however messy.

Completions wrap code in prose, emit several code blocks, or stop mid-block when they run out of tokens. Fences
are read the way Markdown reads them: a fence opens or closes only at the start of a line (at most three spaces of
indentation), and a closing fence is a line of backticks (or tildes) alone, at least as long as the opening one.
So a ``"```python\\n" + code + "```"`` inside a string literal never ends a block. A bare fence line *inside* a
multi-line string can still look like a closing fence; when the block up to it does not parse, the extractor tries
the next closing fences and keeps the first body that parses. Among several blocks it prefers one that parses and
defines ``ENV_SPEC`` and a class, accepts an unterminated final block, and falls back to unfenced code; it says
precisely what it found when it finds nothing.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

from spade_core.errors import SpadeError

_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[^\s`]*)[^`\n]*$")
_CLOSE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*$")
_CLOSE_ANYWHERE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*$", re.MULTILINE)
_CODE_START = re.compile(r"^(?:from |import |ENV_SPEC\b|class |\"\"\"|'''|#)", re.MULTILINE)
PYTHON_TAGS = ("", "python", "py", "python3", "py3")
MAX_CLOSING_CANDIDATES = 16
"""Closing fences tried per block before giving up on finding one whose body parses (bounds the work on
adversarial text: each try is one ``ast.parse``)."""


class ExtractionError(SpadeError):
    """The completion holds no environment module; the message says what was found instead."""


@dataclass(frozen=True)
class Extracted:
    """The module source and how it was found (for statistics and the repair prompt)."""

    source: str
    how: str  # "fenced", "unterminated-fence", "unfenced"
    blocks_seen: int


@dataclass(frozen=True)
class _Block:
    language: str
    body: str
    closed: bool

    @property
    def parses(self) -> bool:
        return _parses(self.body)

    @property
    def score(self) -> int:
        return _score(self.body)


def _parses(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences warn at parse time
            ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _score(block: str) -> int:
    return 2 * ("ENV_SPEC" in block) + ("class " in block) + ("def step" in block)


def _blocks(completion: str) -> list[_Block]:
    """Every fenced block, in order. A block ends at the first closing fence whose body parses (trying at most
    :data:`MAX_CLOSING_CANDIDATES`), else at the first closing fence; with none, at the end of the text."""
    lines = completion.split("\n")
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        opening = _OPEN.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence = opening.group("fence")
        language = opening.group("lang").lower()
        closes = [j for j in range(i + 1, len(lines))
                  if (m := _CLOSE.match(lines[j])) and m.group("fence")[0] == fence[0]
                  and len(m.group("fence")) >= len(fence)]
        end = next((j for j in closes[:MAX_CLOSING_CANDIDATES] if _parses("\n".join(lines[i + 1:j]))), None)
        rest = "\n".join(lines[i + 1:])
        if end is None and (not closes or _parses(rest)):  # cut before its closing fence (a token limit)
            blocks.append(_Block(language, rest.strip("\n"), closed=False))
            break
        if end is None:
            end = closes[0]  # nothing parses either way: the fence as written (the validator says why)
        blocks.append(_Block(language, "\n".join(lines[i + 1:end]).strip("\n"), closed=True))
        i = end + 1
    return blocks


def extract_module(completion: str) -> Extracted:
    """The environment module in ``completion``; raise :class:`ExtractionError` if there is none."""
    if not isinstance(completion, str) or not completion.strip():
        raise ExtractionError("the completion is empty; answer with one ```python block holding the whole module")
    blocks = [b for b in _blocks(completion) if b.language in PYTHON_TAGS]
    candidates = [b for b in blocks if b.score >= 2]
    if candidates:
        best = max(candidates, key=lambda b: (b.parses, b.score, len(b.body)))
        return Extracted(best.body.rstrip() + "\n", "fenced" if best.closed else "unterminated-fence", len(blocks))
    if "ENV_SPEC" in completion:
        start = _CODE_START.search(completion)
        if start is not None:
            body = completion[start.start():]
            cut = _CLOSE_ANYWHERE.search(body)
            if cut is not None and _parses(body[:cut.start()]):
                body = body[:cut.start()]
            return Extracted(body.rstrip() + "\n", "unfenced", len(blocks))
    if blocks:
        raise ExtractionError(
            f"found {len(blocks)} code block(s) but none defines ENV_SPEC and an environment class; "
            "put the whole module (ENV_SPEC + one class) in a single ```python block"
        )
    raise ExtractionError("found no code: answer with one ```python block holding ENV_SPEC and one class")
