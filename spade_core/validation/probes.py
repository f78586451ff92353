"""Probe actions sent at one step of an episode: near misses a sound verifier rejects, equivalent forms of a
correct answer it accepts, and edge inputs that must not break the reward.

Every probe carries a description in words, which goes into the rejection message ("the sign-flipped answer
'-537' was accepted").
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from spade_core import linear_re
from spade_core.linear_re import DIGIT
from spade_core.plugins.domains import answer_kind
from spade_core.validation.adversaries import ActionTemplate
from spade_core.validation.answer_numbers import answer_number
from spade_core.validation.hint_leaks import answer_core, parse_number

SHORT_ANSWER_CHARS = 64
"""Answers up to this long get the full set of near misses; a longer action (a program, a tool call) only loses
its end (in a long action a changed constant may be harmless)."""
_DIGITS = linear_re.compile(f"{DIGIT}+")

HUGE_DIGITS = 400
"""Digits of the "huge number" edge input (below CPython's 4300-digit int() limit on purpose: a crash there is
an interpreter limit, not a reward flaw)."""


CALENDAR_NAMES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                            "january", "february", "march", "april", "may", "june", "july", "august", "september",
                            "october", "november", "december"})
"""Answers whose prefixes of two letters or more are standard abbreviations (Mon, Tues, Thur, Sept): such a prefix
is the same answer, not a near miss."""


LETTER_ANSWERS = frozenset({"yes", "no"})
"""Answers whose first letter is their standard abbreviation (Y/N): that letter is the same answer."""


def abbreviates(short: str, answer: str) -> bool:
    """Whether ``short`` is a standard abbreviation of the word ``answer`` (of :data:`CALENDAR_NAMES` or
    :data:`LETTER_ANSWERS`)."""
    word, cut = answer.strip().lower(), short.strip().rstrip(".").lower()
    if word in LETTER_ANSWERS:
        return cut == word[:1]
    return word in CALENDAR_NAMES and len(cut) >= 2 and word.startswith(cut)


@dataclass(frozen=True)
class Probe:
    action: str
    what: str


def around(action: str, core: str) -> ActionTemplate:
    """The action with its answer ``core`` cut out: ``\\boxed{537}`` -> ``\\boxed{`` + ... + ``}``."""
    at = action.rfind(core) if core else -1
    return ActionTemplate(action[:at], action[at + len(core):]) if at >= 0 else ActionTemplate()


def _format(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def numbers_up(action: str) -> str:
    """``action`` with every number in it one higher."""
    return _DIGITS.sub(lambda m: str(int(m.group()) + 1), action)


def one_off(action: str) -> str | None:
    """A wrong answer in ``action``'s own form: every number in it one higher, else its last letter the next one in
    the alphabet (``\\boxed{42}`` -> ``\\boxed{43}``, ``123`` -> ``124``, ``east`` -> ``easu``); None when it has
    neither."""
    bumped = numbers_up(action)
    if bumped != action:
        return bumped
    for i in range(len(action) - 1, -1, -1):
        ch = action[i]
        if ch.isascii() and ch.isalpha():
            base = "a" if ch.islower() else "A"
            return action[:i] + chr(ord(base) + (ord(ch) - ord(base) + 1) % 26) + action[i + 1:]
    return None


def near_misses(action: str, domain: str) -> list[Probe]:
    """Wrong variants of a correct final action: off by one, truncated, and when the action is an answer (a number
    or one word, not a tool call or a phrase whose wording may vary) sign-flipped (numeric domains), digits or
    letters permuted, embedded in a longer number, listed among its neighbours, joined with other candidates. The
    domain's :data:`~spade_core.plugins.contributions.AnswerKind` decides: no sign flips for ``"label"`` answers."""
    if len(action) > SHORT_ANSWER_CHARS:
        return _unique([Probe("", "the empty answer"), Probe(action[:-1], "the answer without its last character"),
                        Probe(action[: len(action) // 2], "the first half of the answer")], action)
    core = answer_core(action)
    template = around(action, core)
    probes = [Probe("", "the empty answer")]
    bumped = numbers_up(action)
    if bumped != action:
        probes.append(Probe(bumped, "the answer with every number one higher"))
    if len(core) >= 2:
        probes += [Probe(template.render(cut), what) for cut, what in (
            (core[:-1], "the answer without its last character"), (core[: len(core) // 2], "the first half of the "
                                                                    "answer")) if not _same_answer(cut, core)]
    if abbreviates(core[:2], core):  # its abbreviations are the same answer; one letter is not (T: Tuesday, Thursday)
        probes.append(Probe(template.render(core[:1]), "the answer's first letter"))
    if not core or " " in core.strip() or core.lstrip()[:1] in "{[":
        return _unique(probes, action)
    value = parse_number(core)
    if value is not None:
        if value != 0 and answer_kind(domain) != "label":
            probes.append(Probe(template.render(_format(-value)), "the sign-flipped answer"))
        digits = str(abs(value.numerator)) if value.denominator == 1 else ""
        sign = "-" if value < 0 else ""
        if len(digits) >= 2:
            for variant, what in ((digits[::-1], "the answer with its digits reversed"),
                                  ("".join(sorted(digits)), "the answer with its digits sorted"),
                                  (digits[1] + digits[0] + digits[2:], "the answer with two digits swapped")):
                if variant != digits and parse_number(variant) != abs(value):
                    probes.append(Probe(template.render(sign + variant), what))
        if value.denominator == 1:
            probes.append(Probe(template.render(f"9{sign}{digits}9" if not sign else f"{sign}9{digits}9"),
                                "the answer embedded in a longer number"))
            probes.append(Probe(template.render(f"{sign}{digits}0"), "the answer with a digit appended"))
            probes.append(Probe(template.render(f"{value - 1}, {value}, {value + 1}"),
                                "the answer listed among its neighbours"))
        outside = decimal_text(value * (1 + 2 * MAX_TOLERANCE)) if "." in core and value != 0 else None
        if outside is not None:
            probes.append(Probe(template.render(outside), f"the answer moved by {float(2 * MAX_TOLERANCE):.0%}"))
        probes.append(Probe(template.render(f"{_format(value)} {_format(value + 7)} {_format(value * 3 + 1)}"),
                            "the answer followed by other candidates"))
    elif core:
        letters = core
        for variant, what in ((letters[::-1], "the answer reversed"),
                              ("".join(sorted(letters)), "the answer's characters sorted"),
                              (letters[1] + letters[0] + letters[2:] if len(letters) >= 2 else letters,
                               "the answer with two characters swapped")):
            if variant.lower() != letters.lower():
                probes.append(Probe(template.render(variant), what))
        probes.append(Probe(template.render(f"{core} {core[::-1]} x"), "the answer followed by other candidates"))
    if answer_kind(domain) == "numeric":
        probes += scaled_misses(action)
    return _unique(probes, action)


UNIT_FACTORS = (Fraction(10), Fraction(100), Fraction(1000), Fraction(60), Fraction(3600), Fraction(18, 5),
                Fraction(324, 25), Fraction(2))
"""The scale of the common slips a numeric answer can make (a decimal shift, minutes for hours, km/h for m/s and its
square, a factor of two), each tried both ways by :func:`scaled_misses`."""


def scaled_misses(action: str) -> list[Probe]:
    """The number ``action`` answers with multiplied and divided by each of :data:`UNIT_FACTORS` (written as a
    terminating decimal where it has one): the value of a slip, which a verifier accepting "either unit" accepts."""
    number = answer_number(action)
    if number is None or number.value == 0:
        return []
    probes = []
    for factor in UNIT_FACTORS:
        for value, how in ((number.value * factor, "times"), (number.value / factor, "divided by")):
            text = decimal_text(value)
            if text is not None:
                probes.append(Probe(action[:number.start] + text + action[number.end:],
                                    f"the answer {how} {float(factor):g} (a unit slip)"))
    return probes


_UNIT_WORD = linear_re.compile(r"(.*[0-9])([ \t]+)([A-Za-z]+)")
"""An answer that ends in a number, spaces and one word: a quantity and its unit (``2219/5 dollars``, ``3 h 20 min``)."""


def _same_answer(cut: str, core: str) -> bool:
    """Whether a cut of the answer is the answer itself in another form: an abbreviation (``Tue`` of ``Tuesday``),
    the same number (``0.6`` of ``0.60``, ``12`` of ``12.00``, ``35.24`` of ``35.24 €``), or the same quantity with
    its unit word shortened or left out (``2219/5 dollar`` and ``2219/5`` of ``2219/5 dollars``: the number is whole,
    a unit's spelling varies and a bare number is read in the unit the task states)."""
    number, cut_number = answer_number(core), answer_number(cut)
    if abbreviates(cut, core) or (number is not None and cut_number is not None and cut_number.value == number.value):
        return True
    quantity = _UNIT_WORD.fullmatch(core)
    if quantity is None:
        return False
    number_text, unit = quantity.group(1), quantity.group(3)
    rest = cut[len(number_text):]
    return cut.startswith(number_text) and (not rest.strip() or (rest[:1] in " \t" and unit.startswith(rest.lstrip())))


LISTING_MARKS = "/,|()'\""
"""Characters that set a word in a task's text apart as one of several listed spellings (``up/u``, ``(or u/d/l/r)``)."""
MAX_LISTED_TEXT = 20_000
_WORD = linear_re.compile(r"[A-Za-z]+")


def listed_short_form(probe: str, answer: str, text: str) -> bool:
    """Whether ``probe`` is a short form of the one-word ``answer`` (its start) that the task's ``text`` (its
    description and first observation) lists as a spelling of its own (beside a ``/``, ``,``, ``|``, bracket or
    quote), the answer being named there too: ``u`` in "reply up, down, left or right (or u/d/l/r)". Such a cut is
    the answer in another form, not a near miss."""
    core, cut = answer_core(answer), answer_core(probe)
    if not (core.isascii() and core.isalpha() and cut.isascii() and cut.isalpha()) or len(cut) >= len(core) \
            or not core.lower().startswith(cut.lower()):
        return False
    text = text[:MAX_LISTED_TEXT]
    words = list(_WORD.finditer(text))
    if not any(m.group().lower() == core.lower() for m in words):
        return False
    return any(m.group().lower() == cut.lower() and _listed(text, m.start(), m.end()) for m in words)


def _listed(text: str, start: int, end: int) -> bool:
    before, after = text[start - 1:start], text[end:end + 1]
    return bool(before) and before in LISTING_MARKS or bool(after) and after in LISTING_MARKS


def _unique(probes: list[Probe], action: str) -> list[Probe]:
    seen: set[str] = set()
    out = []
    for probe in probes:
        if probe.action != action and probe.action not in seen:
            seen.add(probe.action)
            out.append(probe)
    return out


def equivalents(action: str, domain: str) -> list[Probe]:
    """Other correct spellings of a correct final action: surrounding spaces (any domain, short answers), and for
    domains whose answer kind is ``"numeric"`` the same value written differently (42 -> 42.0, 17.5 -> 17.50, 1/3 -> 2/6)."""
    if len(action) > SHORT_ANSWER_CHARS or not action.strip():
        return []
    probes = [Probe(f"  {action}  ", "the correct answer with surrounding spaces")]
    if answer_kind(domain) != "numeric":
        return probes
    core = answer_core(action)
    value = parse_number(core)
    if value is None or "e" in core.lower() or core not in action:
        return probes
    template = around(action, core)
    if "/" in core:
        num, den = (int(p) for p in core.replace(" ", "").split("/"))
        probes.append(Probe(template.render(f"{2 * num}/{2 * den}"), "the same fraction unreduced"))
        if value.denominator != den:
            probes.append(Probe(template.render(_format(value)), "the same fraction in lowest terms"))
    elif "." in core:
        probes.append(Probe(template.render(core + "0"), "the same decimal with a trailing zero"))
    else:
        probes.append(Probe(template.render(core + ".0"), "the same integer written as a decimal"))
    return probes


MAX_TOLERANCE = Fraction(1, 100)
"""The widest tolerance a verifier may keep as its own, relative to the answer: a numeric near miss it accepts
within this share is an equivalent form when the answer moved as far the other way is accepted too (a band the task
states, such as "within 0.01"); a wider band accepts near misses."""

TOLERANCE_STEPS = (1e-12, 1e-9, 1e-6)
"""Relative deviations probed before near misses: a verifier that accepts the answer moved by one of them has a
tolerance (a sane one: at most one part in a million), and a near miss inside it is an equivalent form."""


def tolerance_probes(action: str) -> list[tuple[Probe, Fraction]]:
    """The answer moved by each of :data:`TOLERANCE_STEPS` (relative), with the absolute deviation; only for answers
    that are decimals (a task with integer answers has no tolerance to respect)."""
    if len(action) > SHORT_ANSWER_CHARS:
        return []
    core = answer_core(action)
    value = parse_number(core)
    if value is None or value == 0 or "." not in core or core not in action:
        return []
    template = around(action, core)
    out = []
    for step in TOLERANCE_STEPS:
        moved = float(value) * (1 + step)
        text = repr(moved)
        if "e" in text.lower():
            continue
        out.append((Probe(template.render(text), f"the answer moved by one part in {1 / step:.0e}"),
                    abs(Fraction(text) - value)))
    return out


def deviation(action: str, answer: str) -> Fraction | None:
    """How far a numeric near miss lies from the numeric answer (None when either is not one number)."""
    mine, theirs = parse_number(answer_core(action)), parse_number(answer_core(answer))
    if mine is None or theirs is None:
        return None
    return abs(mine - theirs)


def mirrored(action: str, answer: str) -> Probe | None:
    """The numeric answer moved as far the other way as the near miss ``action``, when that deviation is within
    :data:`MAX_TOLERANCE` of the answer (None otherwise, or when either gives no number
    (:func:`~spade_core.validation.answer_numbers.answer_number`) or the text around the two numbers differs: another
    unit, another wrapper)."""
    mine, theirs = answer_number(action), answer_number(answer)
    if mine is None or theirs is None or action[:mine.start] != answer[:theirs.start]:
        return None
    after = action[mine.end:]
    if after not in (answer[theirs.end:], "." + answer[theirs.end:]):  # "85." is 85 written with a bare point
        return None
    value = theirs.value
    if value == 0 or mine.value == value or abs(mine.value - value) > MAX_TOLERANCE * abs(value):
        return None
    text = decimal_text(2 * value - mine.value)
    return None if text is None else Probe(answer[:theirs.start] + text + answer[theirs.end:],
                                           "the answer moved the other way")


def decimal_text(value: Fraction) -> str | None:
    """``value`` written as a terminating decimal (None when it has no such form)."""
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        return None
    places = max(twos, fives)
    scaled = abs(value.numerator) * 10 ** places // value.denominator
    digits = str(scaled).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)


def edge_inputs(template: ActionTemplate, max_action_chars: int) -> list[Probe]:
    """Inputs at the edges: non-numbers, infinities, huge numbers, empty, very long and non-ASCII text, in the
    answer format and raw."""
    values = [("nan", "NaN"), ("inf", "infinity"), ("-inf", "minus infinity"), ("1e309", "a float overflow"),
              ("9" * HUGE_DIGITS, "a 400-digit number"), ("-0", "minus zero"), ("١٢٣", "Arabic-Indic digits"),
              ("0x1F", "a hex literal")]
    probes = [Probe(template.render(v), f"{what} in the answer format") for v, what in values]
    if not template.raw:
        probes += [Probe(v, what) for v, what in values[:3]]
    long_text = ("lorem ipsum " * (max_action_chars // 12 + 1))[:max_action_chars]
    probes += [Probe("", "the empty action"), Probe("   \n\t ", "whitespace only"),
               Probe(long_text, f"a {len(long_text)}-character action"),
               Probe("Ωμέγα 你好 🙂 ñ\u200b\u202e", "non-ASCII text"), Probe("\x00\x01\x7f", "control characters"),
               Probe(template.render("٣٣٣"), "non-ASCII digits in the answer format")]
    return _unique(probes, "\uffff")
