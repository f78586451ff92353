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

import bisect
import itertools
import warnings
from dataclasses import dataclass

from spade_core import linear_re
from spade_core.errors import SpadeError
from spade_core.linear_re import WORD
from spade_registry.syntax import parse_source

_CLOSE = linear_re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*$")
_CLOSE_ANYWHERE = linear_re.compile(r"(?m)^ {0,3}(?:`{3,}|~{3,})[ \t]*$")
_CODE_START = linear_re.compile(rf"(?m)^(?:from |import |ENV_SPEC(?:[^{WORD}]|$)|class |\"\"\"|'''|#)")
PYTHON_TAGS = ("", "python", "py", "python3", "py3")
MAX_CLOSING_CANDIDATES = 16
"""Closing fences tried per block before giving up on finding one whose body parses (bounds the work on
adversarial text: each try is one ``ast.parse``)."""
MAX_PARSES = 64
"""Parses per completion, all blocks together; past it, blocks end at their first closing fence."""


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
            parse_source(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def opening_fence(line: str) -> tuple[str, str] | None:
    """The fence and language tag of an opening fence line (up to 3 spaces, 3+ backticks or tildes, an optional tag,
    no backtick after the fence), in one pass over the line (a backtracking pattern was quadratic in its length)."""
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3 or line[indent:indent + 1] not in ("`", "~"):
        return None
    mark = line[indent]
    end = indent
    while end < len(line) and line[end] == mark:
        end += 1
    fence, rest = line[indent:end], line[end:]
    if len(fence) < 3 or "`" in rest or "\n" in rest:
        return None
    tag = rest.lstrip(" \t")
    cut = next((k for k, ch in enumerate(tag) if ch.isspace()), len(tag))
    return fence, tag[:cut]


def _score(block: str) -> int:
    return 2 * ("ENV_SPEC" in block) + ("class " in block) + ("def step" in block)


def _blocks(completion: str) -> list[_Block]:
    """Every fenced block, in order. A block ends at the first closing fence whose body parses (trying at most
    :data:`MAX_CLOSING_CANDIDATES` per block and :data:`MAX_PARSES` in all), else at the first closing fence; with
    none, at the end of the text."""
    lines = completion.split("\n")
    fence_lines = [j for j, line in enumerate(lines) if _CLOSE.match(line)]
    parses_left = MAX_PARSES

    def parses(begin: int, end: int) -> bool:
        nonlocal parses_left
        if parses_left <= 0:
            return False
        parses_left -= 1
        return _parses("\n".join(lines[begin:end]))

    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        opening = opening_fence(lines[i])
        if opening is None:
            i += 1
            continue
        fence, language = opening[0], opening[1].lower()
        closes = list(itertools.islice(
            (j for j in map(fence_lines.__getitem__, range(bisect.bisect_right(fence_lines, i), len(fence_lines)))
             if lines[j].strip()[0] == fence[0] and len(lines[j].strip()) >= len(fence)), MAX_CLOSING_CANDIDATES))
        end = next((j for j in closes[:MAX_CLOSING_CANDIDATES] if parses(i + 1, j)), None)
        if end is None and (not closes or parses(i + 1, len(lines))):  # cut before its closing fence
            blocks.append(_Block(language, "\n".join(lines[i + 1:]).strip("\n"), closed=False))
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
