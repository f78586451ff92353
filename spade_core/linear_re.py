"""Regular expressions that run in linear time, for every parse of model or agent text in trusted code.

Python's ``re`` backtracks: a lazy or nested quantifier over a few kilobytes of adversarial text can hold the GIL for
seconds to minutes (``(.*?)(?:</tag>|$)`` over ``<tag><tag>...`` is quadratic). :func:`compile` returns a pattern
on Google's RE2 (``google-re2``), whose matching time is linear in the text, with the ``re`` methods the bundled
environments and tools use. RE2 has no backreferences or lookaround, and ``$`` matches only at the very end of the
text; flags are written inline (``(?i)``, ``(?s)``). Text that is not valid Unicode (a lone surrogate, which RE2
cannot take as UTF-8) is matched with each surrogate read as U+FFFD, so positions and group lengths are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import re2

WORD = r"\pL\pN_"
"""Python's Unicode ``\\w`` (letters, numbers, underscore) for use inside a character class: RE2's own ``\\w``,
``\\d`` and ``\\b`` are ASCII only."""
SPACE = r"\s\v\x1c-\x1f\x85\p{Z}"
"""Python's Unicode ``\\s`` for use inside a character class."""
DIGIT = r"\p{Nd}"
"""Python's Unicode ``\\d`` (decimal digits of every script; ``int`` and ``Fraction`` read them)."""


def is_word_char(ch: str) -> bool:
    """Whether ``ch`` is a word character in Python's Unicode sense (what ``\\w`` matches in ``re``)."""
    return ch.isalnum() or ch == "_"


def _valid(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (same length, so offsets are unchanged)."""
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


class Match:
    """A match whose groups are read from the caller's own text (lone surrogates included)."""

    __slots__ = ("_match", "string")

    def __init__(self, match: Any, string: str) -> None:
        self._match = match
        self.string = string

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._match.span(self._index(group))

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]

    def _index(self, group: int | str) -> int:
        return self._match.re.groupindex[group] if isinstance(group, str) else group

    def group(self, *groups: int | str) -> Any:
        if len(groups) > 1:
            return tuple(self._one(g) for g in groups)
        return self._one(groups[0] if groups else 0)

    def _one(self, group: int | str) -> str | None:
        start, end = self._match.span(self._index(group))
        return None if start < 0 else self.string[start:end]

    def groups(self) -> tuple[str | None, ...]:
        return tuple(self._one(i) for i in range(1, self._match.re.groups + 1))

    def groupdict(self) -> dict[str, str | None]:
        return {name: self._one(name) for name in self._match.re.groupindex}

    def __getitem__(self, group: int | str) -> str | None:
        return self._one(group)


class LinearPattern:
    """A compiled RE2 pattern with the ``re.Pattern`` methods used on model text (linear time, any text)."""

    __slots__ = ("_regex", "groups", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._regex = re2.compile(pattern)
        self.groups = self._regex.groups

    def _text(self, text: str) -> str | bytes:
        """What RE2 is given: ASCII text as its bytes (the same offsets; the wrapper converts no character offsets,
        which it does per match from the start of a ``str`` and so in time quadratic in the text); other text as
        it is, a lone surrogate read as U+FFFD."""
        return text.encode("ascii") if text.isascii() else _valid(text) if _has_surrogate(text) else text

    def _wrap(self, match: Any, text: str) -> Match | None:
        return None if match is None else Match(match, text)

    def match(self, text: str, pos: int = 0) -> Match | None:
        return self._wrap(self._regex.match(self._text(text), pos), text)

    def fullmatch(self, text: str) -> Match | None:
        return self._wrap(self._regex.fullmatch(self._text(text)), text)

    def search(self, text: str, pos: int = 0) -> Match | None:
        return self._wrap(self._regex.search(self._text(text), pos), text)

    def finditer(self, text: str) -> Iterator[Match]:
        return (Match(m, text) for m in self._regex.finditer(self._text(text)))

    def findall(self, text: str) -> list[Any]:
        out: list[Any] = []
        for m in self.finditer(text):
            if self.groups == 0:
                out.append(m.group(0))
            elif self.groups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(tuple(g or "" for g in m.groups()))
        return out

    def sub(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> str:
        """Replace matches by ``repl``: a string, which may hold ``\\1`` .. ``\\9`` group references, or a
        function of the match."""
        pieces: list[str] = []
        last = 0
        for done, m in enumerate(self.finditer(text)):
            if count and done >= count:
                break
            start, end = m.span()
            pieces.append(text[last:start])
            pieces.append(repl(m) if callable(repl) else _expand(repl, m))
            last = end
        pieces.append(text[last:])
        return "".join(pieces)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _expand(repl: str, match: Match) -> str:
    if "\\" not in repl:
        return repl
    out: list[str] = []
    i = 0
    while i < len(repl):
        ch = repl[i]
        if ch == "\\" and i + 1 < len(repl) and repl[i + 1].isdigit():
            out.append(match.group(int(repl[i + 1])) or "")
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def compile(pattern: str) -> LinearPattern:  # mirrors re.compile
    """A linear-time pattern (see the module docstring for what RE2 does not support)."""
    return LinearPattern(pattern)
