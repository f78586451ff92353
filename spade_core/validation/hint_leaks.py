"""Hint hygiene by information: a fixed set of decoders that try to recover a target (the final answer or the next
reference action) from a hint's text.

A decoder *recovers* the target when one cheap, fixed transformation of the hint yields it: the value itself
(``42``, ``42.0``, ``6/18`` for ``1/3``), the value spelled in words, split into place values or digit by digit,
its digits reversed or reordered, a small offset ("one more than 121"), a sign flip, a simple cipher (rot-N,
Caesar, atbash) or the action's words embedded in prose. A leak counts only if the *same* decoder does not
already recover the target from what the agent sees anyway (the observation): a tool name listed in the task text
or a cell number drawn on the board is not a leak of the hint.

Each :class:`Leak` is *strong* (a specific value: one occurrence is enough) or *weak* (a short answer or a loose
relation that can match by chance: the check needs it on a good share of episodes). Nothing here runs environment
code; everything is bounded string work on text of at most a few kilobytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from spade_core import linear_re
from spade_core.linear_re import DIGIT, WORD, is_word_char

MAX_TEXT_CHARS = 4000
"""Only this much of a hint or an observation is decoded (hints are short; the bound keeps the check cheap)."""
MAX_DECODED_CHARS = 65_536
"""No text is decoded past this many characters, even the text the agent sees (``limit=None``)."""

MAX_OFFSET = 3
"""A number this close to a numeric target (but not equal) is a weak "small offset" leak."""

_BOXED = linear_re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_LABEL = linear_re.compile(r"^\s*[A-Za-z][A-Za-z ]{0,20}:\s*")
_NUMBER = linear_re.compile(
    rf"(?:^|[^{WORD}.])(?P<core>[-+]?{DIGIT}+(?:\.{DIGIT}+)?)(?P<exp>[eE][-+]?{DIGIT}{{1,3}})?"
    rf"(?P<frac>(?:\s*/\s*{DIGIT}+)?)")  # the leading character stands for a lookbehind: not after a word or "."
_TOKEN = linear_re.compile(r"[a-z0-9]+")
_WORD = linear_re.compile(rf"[{WORD}]+")
_NUMERIC_CORE = linear_re.compile(rf"^[-+]?{DIGIT}+(?:\.{DIGIT}+)?(?:[eE][-+]?{DIGIT}{{1,3}})?(?:\s*/\s*{DIGIT}+)?$")
_NORMALISE = linear_re.compile(r"[\s\p{Z}`'\"$\\{}]+")
_GROUPED = linear_re.compile(rf"[-+]?{DIGIT}{{1,3}}(,{DIGIT}{{3}})+")
_NOT_ALNUM = linear_re.compile(r"[^a-z0-9]+")
_NOT_DIGIT = linear_re.compile(r"[^0-9]+")
_DIGITS = linear_re.compile(rf"{DIGIT}+")

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_PLACE_WORDS = {"ones": 1, "one": 1, "units": 1, "unit": 1, "tens": 10, "ten": 10, "hundreds": 100, "hundred": 100,
                "thousands": 1000, "thousand": 1000}
_PLACE = linear_re.compile(r"(\d)\s+(ones?|units?|tens?|hundreds?|thousands?)\b")
_OFFSET = linear_re.compile(
    r"(-?\d+(?:\.\d+)?)\s+(more|less|fewer|greater|larger|smaller|bigger|higher|lower|above|below|after|before)"
    r"(?:\s+than)?\s+(-?\d+(?:\.\d+)?)")
_ARITH = linear_re.compile(r"(-?\d+(?:\.\d+)?)\s*(plus|\+|minus|times|\*|x)\s*(-?\d+(?:\.\d+)?)")
_HALF_DOUBLE = linear_re.compile(r"\b(twice|double|half of|half)\s+(-?\d+(?:\.\d+)?)")
_BRACKET = linear_re.compile(r"(?i)(?:between|from)\s+(-?\d+(?:\.\d+)?(?:/\d+)?)\s+(?:and|to)\s+"
                             r"(-?\d+(?:\.\d+)?(?:/\d+)?)")
_DIVIDED = linear_re.compile(r"(-?\d+(?:\.\d+)?)\s+divided\s+by\s+(-?\d+(?:\.\d+)?)")
_ROMAN = (("m", 1000), ("cm", 900), ("d", 500), ("cd", 400), ("c", 100), ("xc", 90), ("l", 50), ("xl", 40),
          ("x", 10), ("ix", 9), ("v", 5), ("iv", 4), ("i", 1))


@dataclass(frozen=True)
class Leak:
    """One decoder's recovery of a target from a hint."""

    decoder: str
    how: str  # "holds the answer reversed" (the subject is filled in by the caller)
    strong: bool


def answer_core(action: str) -> str:
    """What an action says, without its wrapping: the last ``\\boxed{...}``, else the text without a leading label
    (``Answer:``, ``Move:``), surrounding quotes and a final period."""
    text = action[:MAX_TEXT_CHARS]
    boxed = _BOXED.findall(text)
    if boxed:
        return boxed[-1].strip()
    text = _LABEL.sub("", text.strip(), count=1)
    return text.strip().rstrip(".!").strip().strip("`'\"*").strip()


def parse_number(text: str) -> Fraction | None:
    """A plain numeric answer (``42``, ``-3.50``, ``6/18``, ``3.3e-02``) as an exact fraction, else None."""
    text = text.strip().replace(",", "") if _GROUPED.fullmatch(text.strip()) else text.strip()
    if not _NUMERIC_CORE.match(text):
        return None
    try:
        if "/" in text:
            num, den = (part.strip() for part in text.split("/", 1))
            return Fraction(Fraction(num), Fraction(den)) if Fraction(den) != 0 else None
        return Fraction(text)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def _split_words(text: str) -> list[str]:
    """``text`` cut into alternating runs of word and other characters, word runs at even places (what
    ``re.split(r"(\\W+)", text)`` gives, in one pass)."""
    pieces: list[str] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or is_word_char(text[i]) != is_word_char(text[start]):
            pieces.append(text[start:i])
            start = i
    if not pieces or not is_word_char(pieces[0][0]):
        pieces.insert(0, "")
    if pieces[-1] and not is_word_char(pieces[-1][0]):
        pieces.append("")
    return pieces


def words_to_digits(text: str, limit: int | None = MAX_TEXT_CHARS) -> str:
    """The text with English number words replaced by digits: "five hundred thirty-seven" -> "537",
    "five three seven" -> "5 3 7", "one more than 121" -> "1 more than 121"."""
    words = _split_words(text.lower()[:limit])
    out: list[str] = []
    i = 0
    while i < len(words):
        value, end = _number_at(words, i)
        if end > i:
            out.append(str(value))
            i = end
        else:
            out.append(words[i])
            i += 1
    return "".join(out)


def _number_at(words: list[str], start: int) -> tuple[int, int]:
    """Parse one number made of number words from ``words[start]`` (separators interleaved); return (value,
    index after it) or (0, start) when no number starts there."""
    total, current, i, last_end, seen, last_kind = 0, 0, start, start, False, ""
    while i < len(words):
        word = words[i]
        if word in _UNITS and last_kind not in ("unit", "teen"):
            current += _UNITS[word]
            last_kind = "teen" if _UNITS[word] >= 10 else "unit"
        elif word in _TENS and last_kind in ("", "scale"):
            current += _TENS[word]
            last_kind = "tens"
        elif word in _UNITS and last_kind == "tens" and _UNITS[word] < 10:
            current += _UNITS[word]
            last_kind = "unit"
        elif word in _SCALES and seen and last_kind != "scale":
            scale = _SCALES[word]
            if scale == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * scale
                current = 0
            last_kind = "scale"
        elif seen and word.strip() in ("", "-") and word.count("\n") == 0:
            i += 1
            continue  # a space or hyphen between number words
        elif seen and word == "and" and last_kind == "scale":
            i += 1
            continue
        else:
            break
        seen = True
        i += 1
        last_end = i
    if not seen:
        return 0, start
    return total + current, last_end


def _numbers(text: str) -> list[str]:
    """Every number written in digits, as written: not after a word character or ``.``; an exponent only where a
    non-word character (or the end) follows it, as ``\\b`` does in Python's Unicode sense."""
    found: list[str] = []
    pos = 0
    while (match := _NUMBER.search(text, pos)) is not None:
        core_end = match.end("core")
        exp_end = match.end("exp")
        if exp_end > 0 and exp_end < len(text) and is_word_char(text[exp_end]):
            found.append(match.group("core"))
            pos = core_end
            continue
        found.append(text[match.start("core"):match.end()])
        pos = match.end()
    return found


def _single_digits(text: str) -> str:
    """The digits standing alone (not beside another digit, nor in a decimal like ``3.5``), in order."""
    out: list[str] = []
    for match in _DIGITS.finditer(text):
        start, end = match.span()
        after_decimal = start >= 2 and text[start - 1] == "." and text[start - 2].isdecimal()
        before_decimal = end + 1 < len(text) and text[end] == "." and text[end + 1].isdecimal()
        if end - start == 1 and not after_decimal and not before_decimal:
            out.append(match.group())
    return "".join(out)


def numbers_in(text: str, limit: int | None = MAX_TEXT_CHARS) -> list[Fraction]:
    """Every number written in digits in the text (integers, decimals, fractions ``a/b``)."""
    found: list[Fraction] = []
    for number in _numbers(text[:limit]):
        value = parse_number(number.replace(" ", ""))
        if value is not None:
            found.append(value)
    return found


def _squash(text: str) -> str:
    return _NOT_ALNUM.sub("", text.lower())


def _normalise(text: str) -> str:
    return _NORMALISE.sub("", text.lower())


def _rot(text: str, n: int) -> str:
    return "".join(chr((ord(ch) - 97 + n) % 26 + 97) if "a" <= ch <= "z" else ch for ch in text)


def _atbash(text: str) -> str:
    return "".join(chr(219 - ord(ch)) if "a" <= ch <= "z" else ch for ch in text)


def _digits(value: Fraction) -> str:
    return str(abs(value.numerator)) if value.denominator == 1 else ""


def _specific(value: Fraction) -> bool:
    """Specific enough that one chance occurrence is unlikely: two or more significant digits."""
    if value.denominator == 1:
        return abs(value) >= 10
    return len(_NOT_DIGIT.sub("", f"{float(value):.6g}").strip("0")) >= 2


ARGUMENT_KEYS = ("arguments", "args", "parameters", "params", "input")
"""Where a JSON tool call keeps what it passes: the part of a call a plan naming the tool leaves to the agent."""


def json_action(action: str) -> object | None:
    """The JSON object or list an action holds (the whole action, else its outermost braces), or None."""
    for text in (action, action[action.find("{"): action.rfind("}") + 1] if "{" in action else ""):
        if not text:
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, (dict, list)):
            return data
    return None


def _action_tokens(action: str) -> list[str]:
    """The informative words of an action: a JSON tool call's argument values (the tool's name alone says what to
    do, not with what: a plan naming tools is no leak), else its words."""
    data = json_action(action)
    if isinstance(data, dict):
        data = next((data[k] for k in ARGUMENT_KEYS if k in data), data)
    if isinstance(data, (dict, list)):
        values: list[str] = []
        _json_values(data, values, 0)
        return [t for v in values for t in _WORD.findall(v.lower())]
    return _WORD.findall(answer_core(action).lower())


def _json_values(data: object, out: list[str], depth: int) -> None:
    if depth > 6 or len(out) > 64:
        return
    if isinstance(data, dict):
        for value in data.values():
            _json_values(value, out, depth + 1)
    elif isinstance(data, list):
        for value in data:
            _json_values(value, out, depth + 1)
    elif data is not None and not isinstance(data, bool):
        out.append(str(data))


class DecodedText:
    """A text prepared once for every decoder (hints repeat across turns; observations are decoded once too).
    ``limit``: characters decoded (None: all of it, for the text the agent sees, which a leak is compared with)."""

    def __init__(self, text: str, limit: int | None = MAX_TEXT_CHARS) -> None:
        limit = MAX_DECODED_CHARS if limit is None else min(limit, MAX_DECODED_CHARS)
        text = text[:limit]
        self.raw = text
        self.lower = text.lower()
        self.normalised = _normalise(text)
        self.squashed = _squash(text)
        self.boundaries = _word_boundaries(self.lower)
        self.worded = words_to_digits(text, limit)
        self.tokens = set(_TOKEN.findall(self.worded)) | set(_TOKEN.findall(self.lower))
        self.words = set(_WORD.findall(self.lower)) | set(_WORD.findall(self.worded))
        self.digit_numbers = set(numbers_in(text, limit))
        self.numbers = set(numbers_in(self.worded, limit)) | self.digit_numbers
        self.integers = {n for n in self.numbers if n.denominator == 1}
        self.digit_strings = set(_DIGITS.findall(self.worded))  # as written: "081" keeps its zero
        self.single_digits = _single_digits(self.worded)
        self.place_sum = sum(int(d) * _PLACE_WORDS[w] for d, w in _PLACE.findall(self.worded))
        self.relations = _relations(self.worded)
        self.midpoints = _midpoints(self.worded)


def _word_boundaries(lower: str) -> frozenset[int]:
    """Positions in the squashed text (letters and digits only) where a word starts or ends."""
    out, at = {0}, 0
    for token in _TOKEN.findall(lower):
        at += len(token)
        out.add(at)
        out.add(at - len(token))
    return frozenset(out)


def in_words(needle: str, text: DecodedText) -> bool:
    """``needle`` (squashed) occurs in the squashed text starting and ending at word boundaries: "front c" is not in
    "toward the front can switch" (its end falls inside "can"), "north east" is in "northeast"."""
    start = text.squashed.find(needle)
    while start >= 0:
        if start in text.boundaries and start + len(needle) in text.boundaries:
            return True
        start = text.squashed.find(needle, start + 1)
    return False


def _relations(worded: str) -> set[Fraction]:
    """Values the text states as a relation between two numbers: "1 more than 121" -> 122, "60 plus 2" -> 62."""
    found: set[Fraction] = set()
    for a, word, b in _OFFSET.findall(worded):
        x, y = Fraction(a), Fraction(b)
        up = word in ("more", "greater", "larger", "bigger", "higher", "above", "after")
        found.add(y + x if up else y - x)
    for a, op, b in _ARITH.findall(worded):
        x, y = Fraction(a), Fraction(b)
        found.add(x + y if op in ("plus", "+") else x - y if op == "minus" else x * y)
    for word, b in _HALF_DOUBLE.findall(worded):
        y = Fraction(b)
        found.add(y * 2 if word in ("twice", "double") else y / 2)
    for a, b in _DIVIDED.findall(worded):
        if Fraction(b) != 0:
            found.add(Fraction(a) / Fraction(b))
    return found


def _midpoints(worded: str) -> set[Fraction]:
    """The middles of the ranges the text names ("between 155 and 159" -> 157, "from 2.5 to 3.5" -> 3)."""
    found: set[Fraction] = set()
    for a, b in _BRACKET.findall(worded):
        low, high = parse_number(a), parse_number(b)
        if low is not None and high is not None and low != high:
            found.add((low + high) / 2)
    return found


def _roman(value: int) -> str:
    out = []
    for letters, amount in _ROMAN:
        while value >= amount:
            out.append(letters)
            value -= amount
    return "".join(out)


def find_leaks(hint: DecodedText, target: str) -> list[Leak]:
    """Every decoder that recovers ``target`` (an action) from ``hint``."""
    core = answer_core(target)
    squashed = _squash(core)
    if not squashed:
        return []
    leaks: list[Leak] = []
    value = parse_number(core)
    long_text = len(squashed) >= 3 and value is None
    if value is not None:
        leaks.extend(_numeric_leaks(hint, value))
    elif len(squashed) >= 5 and in_words(squashed, hint):
        leaks.append(Leak("verbatim", "holds the {what} (spaces and punctuation aside)", True))
    elif long_text and in_words(squashed, hint):
        leaks.append(Leak("verbatim", "holds the {what} verbatim", True))
    elif squashed in hint.tokens:
        leaks.append(Leak("verbatim", "holds the {what} as a word", len(squashed) >= 4))
    letters = sum(ch.isalpha() for ch in squashed)
    if letters >= 3:
        leaks.extend(_cipher_leaks(hint, squashed))
    if value is None:
        tokens = _action_tokens(target)
        if len(tokens) >= 2 and any(len(t) >= 3 for t in tokens) and all(t in hint.words for t in tokens):
            if not any(leak.decoder == "verbatim" for leak in leaks):
                leaks.append(Leak("prose", "spells out the {what} in a sentence (every word of it appears)",
                                  sum(len(t) for t in tokens) >= 6))
    return leaks


def _numeric_leaks(hint: DecodedText, value: Fraction) -> list[Leak]:
    leaks: list[Leak] = []
    strong = _specific(value)
    if value in hint.digit_numbers:
        leaks.append(Leak("value", "states the {what}'s value", strong))
    elif value in hint.numbers:
        leaks.append(Leak("words", "spells the {what} out in words", strong))
    digits = _digits(value)
    if value != 0 and -value in hint.numbers and value not in hint.numbers:
        leaks.append(Leak("sign", "holds the {what} with its sign flipped", strong))
    if value.denominator == 1 and abs(value) >= 10:
        if hint.place_sum == abs(value) or _place_value_split(hint.integers, int(abs(value))):
            leaks.append(Leak("place_values", "holds the {what} split into place values", True))
        if len(digits) >= 2 and digits in hint.single_digits and value not in hint.numbers:
            leaks.append(Leak("digits", "spells the {what} digit by digit", True))
        for other in hint.digit_strings:
            if other != digits and len(other) == len(digits) and sorted(other) == sorted(digits):
                if other == digits[::-1]:
                    leaks.append(Leak("reversed", "holds the {what} reversed", len(digits) >= 3))
                else:
                    leaks.append(Leak("permuted", "holds the {what}'s digits in another order", len(digits) >= 3))
                break
        singles = hint.single_digits
        if len(digits) >= 2 and len(singles) == len(digits) and sorted(singles) == sorted(digits) \
                and singles != digits:
            leaks.append(Leak("permuted", "holds the {what}'s digits one by one in another order", len(digits) >= 3))
    if value.denominator == 1 and abs(value) >= 10:
        leaks.extend(_encoded_integer(hint, int(value)))
    if value in hint.relations and value not in hint.numbers:
        leaks.append(Leak("relation", "gives the {what} as a small computation on its numbers", strong))
    if value in hint.midpoints and value not in hint.numbers:
        leaks.append(Leak("bracket", "names a range whose middle is the {what}", False))
    if abs(value) >= 10 and value not in hint.numbers:
        near = sorted((n for n in hint.numbers if 0 < abs(n - value) <= MAX_OFFSET), key=lambda n: abs(n - value))
        if near:
            leaks.append(Leak("offset", f"holds {_show(near[0])}, {_show(abs(near[0] - value))} away from the "
                              "{what}", False))
    return leaks


def _encoded_integer(hint: DecodedText, value: int) -> list[Leak]:
    """An integer in another base or notation, its square, or its digits each shifted by the same amount."""
    n, leaks = abs(value), []
    if f"0x{n:x}" in hint.lower or (n >= 16 and f"{n:x}" in hint.words and "hex" in hint.lower):
        leaks.append(Leak("encoded", "holds the {what} in hexadecimal", True))
    if n >= 32 and f"{n:b}" in hint.digit_strings:
        leaks.append(Leak("encoded", "holds the {what} in binary", True))
    roman = _roman(n) if n < 4000 else ""
    if len(roman) >= 3 and roman in hint.words:
        leaks.append(Leak("encoded", "holds the {what} in Roman numerals", True))
    if Fraction(n * n) in hint.integers and n >= 10:
        leaks.append(Leak("encoded", "holds the {what} squared", True))
    digits = str(n)
    if len(digits) >= 3:
        for k in range(1, 10):
            shifted = "".join(str((int(d) + k) % 10) for d in digits)
            if shifted in hint.digit_strings:
                leaks.append(Leak("shifted", f"holds the {{what}} with every digit shifted by {k}", False))
                break
    return leaks


def _place_value_split(integers: set[Fraction], value: int) -> bool:
    """The hint holds d*10^k for every non-zero digit d of ``value`` (at least two parts): "500 + 30 + 7"."""
    digits = str(value)
    parts = [int(d) * 10 ** (len(digits) - 1 - i) for i, d in enumerate(digits) if d != "0"]
    return len(parts) >= 2 and all(Fraction(p) in integers for p in parts)


def _cipher_leaks(hint: DecodedText, squashed: str) -> list[Leak]:
    variants: list[tuple[str, str]] = [(squashed[::-1], "holds the {what} reversed"),
                                       (_atbash(squashed), "holds the {what} atbash-encoded")]
    variants += [(_rot(squashed, n), f"holds the {{what}} shifted by {n} letters (rot-{n})") for n in range(1, 26)]
    leaks: list[Leak] = []
    for coded, how in variants:
        if coded == squashed:
            continue
        if (len(coded) >= 5 and in_words(coded, hint)) or coded in hint.tokens:
            leaks.append(Leak("cipher", how, True))
            break
    return leaks


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


_FAMILY = {"words": "value", "verbatim": "value", "prose": "value"}
"""Decoders that recover the same information (the value itself, however written) share a family: a value the
observation shows in digits is not leaked by a hint that spells it in words."""


def new_leaks(hint: DecodedText, visible: DecodedText, target: str) -> list[Leak]:
    """Leaks of ``target`` from the hint. A strong one counts only if no decoder of the same family already gets
    the target from the visible text (a file name or tool name the task shows is not leaked by the hint); a weak
    one always counts, and the caller judges it by how consistently the hint tracks the target."""
    leaks = find_leaks(hint, target)
    if not any(leak.strong for leak in leaks):
        return leaks
    seen = {_FAMILY.get(leak.decoder, leak.decoder) for leak in find_leaks(visible, target)}
    return [leak for leak in leaks if not leak.strong or _FAMILY.get(leak.decoder, leak.decoder) not in seen]


_IMPERATIVE = linear_re.compile(
    r"(?i)\b(?:answer|reply|respond|type|say|send|enter|write|play|submit|guess|choose|pick|select|move|output|try|"
    r"use|call|press|go)\b(?:\s+(?:with|in|to))?\s*[:\-]?\s*([^\n.;,!?()]{1,40})")
_QUOTED = linear_re.compile(r"'([^'\n]{1,64})'|\"([^\"\n]{1,64})\"|`([^`\n]{1,64})`")


def follow_candidates(hint: str, limit: int = 8) -> list[str]:
    """Actions a policy that *follows* the hint would try, most explicit first: boxed and quoted text, what comes
    after an instruction verb ("reply with north", "play 7"), the numbers it states (also those in words), and the
    whole hint."""
    text = hint[:MAX_TEXT_CHARS]
    found: list[str] = []
    found += [f"\\boxed{{{b}}}" for b in _BOXED.findall(text)]
    found += [next(g for g in m if g) for m in _QUOTED.findall(text)]
    for phrase in _IMPERATIVE.findall(text):
        phrase = phrase.strip()
        if phrase:
            found.append(phrase)
            found.append(phrase.split()[0])
    worded = words_to_digits(text)
    found += [number.replace(" ", "") for number in _numbers(worded)]
    found.append(text.strip())
    unique = [f for f in dict.fromkeys(s.strip() for s in found) if f]
    return unique[:limit]
