"""The linear rewrites of the host's text analysis agree with the backtracking patterns they replace, Unicode
included (RE2's own ``\\w \\d \\s \\b`` are ASCII only), and their cost grows linearly with the text."""

from __future__ import annotations

import re
import sys
import time
import unicodedata
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core import linear_re
from spade_core.linear_re import DIGIT, SPACE, WORD
from spade_core.validation import adversaries, hint_leaks
from spade_domains.math import verify

ASSIGNED = "".join(chr(c) for c in range(sys.maxunicode + 1)
                   if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) != "Cn")
"""Every code point Python's Unicode database assigns (RE2's tables are newer: they also know later additions)."""


def test_character_classes_match_python_unicode_classes() -> None:
    for python_class, linear_class in ((r"\w", f"[{WORD}]"), (r"\d", DIGIT), (r"\s", f"[{SPACE}]")):
        assert linear_re.compile(linear_class).findall(ASSIGNED) == re.findall(python_class, ASSIGNED), python_class


TEXT = st.lists(st.sampled_from([*"0123456789 .eE-+/,ax٣é_\n'\"{}\\ω", "five", " hundred", " or ", "Hello. ",
                                 "Alpha"]), max_size=30).map("".join)

_OLD_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d{1,3}\b)?(?:\s*/\s*\d+)?")
_OLD_SINGLE = re.compile(r"(?<!\d)(?<!\d\.)\d(?!\d|\.\d)")


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_hint_numbers_agree_with_the_lookbehind_pattern(text: str) -> None:
    assert hint_leaks._numbers(text) == _OLD_NUMBER.findall(text)
    assert hint_leaks._single_digits(text) == "".join(_OLD_SINGLE.findall(text))
    assert hint_leaks._split_words(text) == re.split(r"(\W+)", text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_adversary_readings_agree_with_the_lookaround_patterns(text: str) -> None:
    assert adversaries._short_numbers(text) == re.findall(r"(?<![\w.])\d{1,2}(?![\w.])", text)
    assert adversaries._names_inside_sentences(text) == re.findall(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{3,})\b", text)
    assert adversaries._split_or(text) == re.split(r",|\bor\b", text)


_OLD_MATH_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d{1,3}(?![A-Za-z]))?|\.\d+)|(?P<cmd>\\[A-Za-z]+)|(?P<name>[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/^(){}\[\],|]))")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.eE+-xy \\frac{}()^*/٣\t")), max_size=20))
def test_math_tokens_agree_with_the_lookahead_pattern(text: str) -> None:
    old = _OLD_MATH_TOKEN.match(text)
    if not old or not old.end():
        return
    kind, value, end = verify._next_token(text, 0)
    assert (kind, value, end) == (old.lastgroup, old.group(old.lastgroup), old.end())


def test_unicode_numbers_and_words_are_read_as_before() -> None:
    assert hint_leaks.numbers_in("x ٣٤ and 1e5é") == [Fraction(34), Fraction(1)]
    assert "ωμέγα" in hint_leaks.DecodedText("ωμέγα 7").words
    assert adversaries.observation_values("pick ٣ now") [:1] == ["٣"]


def _seconds(text: str) -> float:
    start = time.perf_counter()
    hint_leaks.DecodedText(text, limit=None)
    hint_leaks.follow_candidates(text)
    adversaries.observation_values(text)
    return time.perf_counter() - start


def test_a_long_serial_costs_linear_time() -> None:
    """An observation holding an 8,000-digit serial (48-71 s for the hint stage with backtracking patterns) is
    decoded in well under a second, and four times the text costs about four times the time."""
    serial = "serial " + "7" * 8000 + ". " + "1." * 4000
    small, big = _seconds(serial), _seconds(serial * 4)
    assert small < 1.0
    assert big < 8 * small + 0.2
