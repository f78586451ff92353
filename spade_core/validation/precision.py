"""How precise a numeric answer must be, and the probes just outside that precision.

A verifier must refuse answers that are wrong by more than the task's precision. The precision is what the task's
observation states (``within 0.01``, ``within 0.5%``, ``± 2``, ``to the nearest whole number``); when the observation
states none, it is what the reference's own answers imply: for whole numbers, a reply nearer another whole number is
not the answer; for decimals given to at most :data:`IMPLIED_MAX_PLACES` places (``12.34``, ``7.083 km``, a tool
call's ``"answer": "88.50"``), a reply :data:`IMPLIED_MISS_UNITS` units of the reference's last place away (``12.44``)
is another answer at the reference's own precision. Where the observation speaks of precision in words these rules
cannot read (``to three significant figures``; ``to 10 decimal places``, which asks for a form more than it states a
band: a verifier may check it within one part in a million), or the reference answers with longer decimals (a float
as computed) and nothing is stated, there is no precision to probe: the near misses of
:mod:`spade_core.validation.probes` keep their tolerance band.

An answer accepted *inside* the precision is an equivalent form (a shorter decimal within a stated tolerance); only
an answer outside it that is accepted is a flaw, so every probe here lies well outside: a stated band moved past
:data:`OUTSIDE_FACTOR` times, a whole number moved past the half-way point to the next (:data:`WHOLE_NUMBER_MISS`),
a short decimal by ten units of its last place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from spade_core import linear_re
from spade_core.validation.answer_numbers import answer_number, whole_answer
from spade_core.validation.probes import Probe, decimal_text

OUTSIDE_FACTOR = 3
"""A stated band is probed this many times as far from the answer: far enough that a verifier measuring the band
from the exact value (the reference may give a rounded one) or with ``<`` for ``<=`` still rejects it."""

WHOLE_NUMBER_MISS = Fraction(3, 5)
"""How far a whole-number answer is moved when nothing is stated: closer to the next whole number than to the answer.
A verifier that rounds the reply to the nearest whole number (``round(float(x)) == n``, ``abs(x - n) < 0.5``) accepts
12.4 for 12, and that is a reading of the same answer, not a wrong one it lets through; 12.6 is 13 by any reading."""

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_BAND = linear_re.compile(r"(?i)(?:within|±|\+/-|\+-|tolerance(?: of| is|:|=)?)\s*(?:of\s+|±\s*)?" + _NUMBER +
                          r"\s*(%|percent|per cent)?")
_NEAREST = linear_re.compile(r"(?i)(?:nearest|next|to the)\s+(whole number|integer|unit|tenth|hundredth|thousandth|cent)")
_NEAREST_BAND = {"whole number": Fraction(1, 2), "integer": Fraction(1, 2), "unit": Fraction(1, 2),
                 "tenth": Fraction(1, 20), "hundredth": Fraction(1, 200), "thousandth": Fraction(1, 2000),
                 "cent": Fraction(1, 200)}
_SPEAKS_OF_PRECISION = linear_re.compile(
    r"(?i)(?:toleran|approximat|rounded|round to|round your|round the|nearest|accura|precis|decimal place|"
    r"significant|roughly|±|\+/-)")

IMPLIED_MAX_PLACES = 3
"""The most decimal places a reference's answers may have for their last place to be read as the task's precision:
a short decimal (money to the cent, a distance to the metre in km) is rounded on purpose; a longer one is a float as
computed, and a verifier may keep any tolerance below 1% for it."""

IMPLIED_MISS_UNITS = 10
"""How many units of the reference's last decimal place a short-decimal probe moves (12.34 to 12.44, 7.083 to 7.093):
a verifier may accept a few units (half a unit after rounding, one unit, float error), but ten is another answer."""


@dataclass(frozen=True)
class Precision:
    """The largest deviation from the answer the task allows (``band``, absolute) and where it comes from, in words
    for messages ("the task states within 0.01")."""

    band: Fraction
    said: str
    miss: Fraction
    """How far the probes move the answer: outside the band wherever the reference itself was rounded."""


def _stated(band: Fraction, said: str) -> Precision:
    return Precision(band, f"the task states {said!r}", OUTSIDE_FACTOR * band)


def stated_bands(text: str, answer: Fraction) -> list[Precision]:
    """Every precision ``text`` states for an answer near ``answer``, as absolute bands."""
    bands = []
    for match in _BAND.finditer(text):
        amount = Fraction(match.group(1))
        relative = match.group(2) is not None
        bands.append(_stated(amount / 100 * abs(answer) if relative else amount, match.group(0).strip()))
    for match in _NEAREST.finditer(text):
        bands.append(_stated(_NEAREST_BAND[match.group(1).lower()], match.group(0).strip()))
    return bands


def precision(observations: str, answer: str, others: Sequence[str] = (), *,
              whole_numbers: bool = True) -> Precision | None:
    """The precision the reference's final ``answer`` must keep: the widest band the ``observations`` state (its
    probes rounded up to the answer's own decimal places: 0.015 off 65.40 is probed as 65.42); else,
    when they speak of precision in no words at all: band 0 when it and the reference's ``others`` (its final
    answers on other seeds) are all whole numbers (only where ``whole_numbers``: answers that are values, not a
    tool call or a label naming an item); one unit of the finest decimal place they use when every one gives one
    number and that place is 1 to :data:`IMPLIED_MAX_PLACES`; else None (nothing to probe)."""
    number = answer_number(answer)
    if number is None:
        return None
    bands = stated_bands(observations, number.value)
    if bands:
        widest = max(bands, key=lambda p: p.band)
        if widest.band <= 0:
            return None
        if number.places <= 0:
            return widest
        unit = Fraction(1, 10 ** number.places)  # probed in the answer's own places (a verifier may refuse more)
        return replace(widest, miss=-(-widest.miss // unit) * unit)
    if _SPEAKS_OF_PRECISION.search(observations):
        return None
    if whole_numbers and all(whole_answer(a) is not None for a in (answer, *others)):
        return Precision(Fraction(0), "the reference answers with whole numbers and the task states no tolerance",
                         WHOLE_NUMBER_MISS)
    numbers = [answer_number(a) for a in (answer, *others)]
    places = max((n.places for n in numbers if n is not None), default=0)
    if any(n is None or n.places < 0 for n in numbers) or not 1 <= places <= IMPLIED_MAX_PLACES:
        return None
    unit = Fraction(1, 10 ** places)
    return Precision(unit, f"the reference answers to {places} decimal place{'s' if places > 1 else ''} and the "
                     "task states no tolerance", IMPLIED_MISS_UNITS * unit)


def outside_precision(action: str, kept: Precision) -> list[Probe]:
    """The number ``action`` answers with (:func:`~spade_core.validation.answer_numbers.answer_number`) moved outside the precision ``kept``, by its
    ``miss`` each way (no probe for an action that gives no one plain number)."""
    number = answer_number(action)
    if number is None:
        return []
    probes = []
    for offset in (kept.miss, -kept.miss):
        text = decimal_text(number.value + offset)
        if text is not None:
            probes.append(Probe(action[:number.start] + text + action[number.end:],
                                f"the answer moved by {float(offset):+g}, outside the precision ({kept.said})"))
    return probes
