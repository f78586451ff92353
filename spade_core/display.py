"""The one way text from environments, stores and models reaches an operator's terminal or a JSON line.

Anything an environment, a registry record, a validation report, a plugin or a model produced may hold Rich
markup (``[bold green]PASSED[/]``), raw escape sequences (ANSI CSI, OSC 52 clipboard writes, C1 controls such as
``\\x9b``), carriage returns and backspaces that overwrite what was printed, bidirectional overrides that reorder
it, and lone surrogates that cannot be encoded at all (and would crash the print, losing every report after it).

- :func:`clean` makes such a value printable: every control character (except newline and tab), every bidi and
  invisible format character, line/paragraph separators and lone surrogates become visible escapes (``\\x1b``,
  ``\\u202e``, ``\\ud800``). The text can no longer move the cursor, restyle, reorder or hide anything.
- :func:`text` wraps a cleaned value in a Rich ``Text``, which is never parsed as markup: use it for table cells,
  titles and whole lines. :func:`markup` escapes a cleaned value for interpolation into our own markup strings.
- :func:`json_text` is the JSON form: strict JSON (no NaN/Infinity), ASCII-only (every control and format
  character is a ``\\uXXXX`` escape) and valid Unicode (a lone surrogate becomes U+FFFD).
- :func:`echo` prints one cleaned value with ``click.echo``.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping
from typing import Any

import click
from rich.markup import escape
from rich.text import Text

_BIDI_AND_INVISIBLE = frozenset(
    [0x061C, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0xFEFF]
    + list(range(0x202A, 0x202F))  # LRE RLE PDF LRO RLO
    + list(range(0x2066, 0x206A))  # LRI RLI FSI PDI
    + list(range(0xFFF9, 0xFFFC))  # interlinear annotation controls
)


def _escape_char(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _needs_escape(char: str, keep_newlines: bool) -> bool:
    code = ord(char)
    if char == "\t" or (char == "\n" and keep_newlines):
        return False
    if code < 0x20 or 0x7F <= code < 0xA0 or code in _BIDI_AND_INVISIBLE or 0xD800 <= code < 0xE000:
        return True
    return code >= 0xA0 and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def _to_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception:  # a value whose __str__ fails (or an int over the digit limit) still gets a line
        return f"<unprintable {type(value).__name__}>"


def clean(value: Any, *, keep_newlines: bool = True) -> str:
    """``str(value)`` with every character that could act on a terminal written as a visible escape."""
    raw = _to_str(value)
    if raw.isascii() and raw.isprintable():
        return raw
    return "".join(_escape_char(ord(c)) if _needs_escape(c, keep_newlines) else c for c in raw)


def text(value: Any, style: str = "", *, keep_newlines: bool = True) -> Text:
    """A Rich ``Text`` of :func:`clean` ``(value)``: styled as given, never parsed as markup."""
    return Text(clean(value, keep_newlines=keep_newlines), style=style)


def markup(value: Any) -> str:
    """:func:`clean` ``(value)`` escaped for interpolation into a Rich markup string."""
    return escape(clean(value))


def json_safe(value: Any) -> Any:
    """Plain JSON data: lone surrogates replaced by U+FFFD, non-finite floats as None, keys as strings."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if not value.isascii() else value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, Mapping):
        return {json_safe(k if isinstance(k, str) else _to_str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    return json_safe(_to_str(value))


def json_text(value: Any, *, indent: int | None = None) -> str:
    """Strict, ASCII-only, valid-Unicode JSON for stdout (see the module docstring)."""
    return json.dumps(json_safe(value), ensure_ascii=True, allow_nan=False, indent=indent)


def echo(value: Any, *, err: bool = False) -> None:
    """Print one line (or block) of untrusted text, cleaned."""
    click.echo(clean(value), err=err)


def aligned_rows(rows: list[tuple[str, ...]] | list[list[str]]) -> list[str]:
    """Rows of cleaned cells as lines, columns padded to their widest cell (no width limit, nothing cut)."""
    cleaned = [[clean(cell, keep_newlines=False) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cleaned if i < len(row)) for i in range(max(map(len, cleaned), default=0))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in cleaned]
