"""How precise a numeric answer must be, and the probes just outside that precision.

A verifier must refuse answers that are wrong by more than the task's precision. The precision is what the task's
observation states (``within 0.01``, ``within 0.5%``, ``± 2``, ``to the nearest whole number``); when the observation states none, it is what the reference's own answers imply: for whole numbers, a reply
nearer another whole number is not the answer. Where the observation speaks of precision in words these rules cannot read (``to
three significant figures``; ``to 10 decimal places``, which asks for a form more than it states a band: a verifier
may check it within one part in a million), or the reference answers with decimals and nothing is stated, there is no precision to
probe: the near misses of :mod:`spade_core.validation.probes` keep their tolerance band.

An answer accepted *inside* the precision is an equivalent form (a shorter decimal within a stated tolerance); only
an answer outside it that is accepted is a flaw, so every probe here lies well outside: a stated band moved past
:data:`OUTSIDE_FACTOR` times, a whole number moved past the half-way point to the next (:data:`WHOLE_NUMBER_MISS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from spade_core import linear_re
from spade_core.validation.hint_leaks import answer_core, parse_number
from spade_core.validation.probes import SHORT_ANSWER_CHARS, Probe, around, decimal_text

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
_NEAREST = linear_re.compile(r"(?i)nearest\s+(whole number|integer|unit|tenth|hundredth|thousandth|cent)")
_NEAREST_BAND = {"whole number": Fraction(1, 2), "integer": Fraction(1, 2), "unit": Fraction(1, 2),
                 "tenth": Fraction(1, 20), "hundredth": Fraction(1, 200), "thousandth": Fraction(1, 2000),
                 "cent": Fraction(1, 200)}
_SPEAKS_OF_PRECISION = linear_re.compile(
    r"(?i)(?:toleran|approximat|rounded|round to|round your|round the|nearest|accura|precis|decimal place|"
    r"significant|roughly|±|\+/-)")
_WHOLE = linear_re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Precision:
    """The largest deviation from the answer the task allows (``band``, absolute) and where it comes from, in words
    for messages ("the task states within 0.01")."""

    band: Fraction
    said: str


def stated_bands(text: str, answer: Fraction) -> list[Precision]:
    """Every precision ``text`` states for an answer near ``answer``, as absolute bands."""
    bands = []
    for match in _BAND.finditer(text):
        amount = Fraction(match.group(1))
        relative = match.group(2) is not None
        bands.append(Precision(amount / 100 * abs(answer) if relative else amount,
                               f"the task states {match.group(0).strip()!r}"))
    for match in _NEAREST.finditer(text):
        bands.append(Precision(_NEAREST_BAND[match.group(1).lower()], f"the task states {match.group(0).strip()!r}"))
    return bands


def precision(observations: str, answer: str, others: Sequence[str] = ()) -> Precision | None:
    """The precision the reference's final ``answer`` must keep: the widest band the ``observations`` state; else,
    when they speak of precision in no words at all and it and the reference's ``others`` (its final answers on
    other seeds) are all whole numbers, band 0 (a whole number: probed at :data:`WHOLE_NUMBER_MISS`); else None
    (nothing to probe)."""
    value = parse_number(answer_core(answer))
    if value is None:
        return None
    bands = stated_bands(observations, value)
    if bands:
        widest = max(bands, key=lambda p: p.band)
        return widest if widest.band > 0 else None
    if _SPEAKS_OF_PRECISION.search(observations):
        return None
    if all(_WHOLE.fullmatch(answer_core(a)) for a in (answer, *others)):
        return Precision(Fraction(0), "the reference answers with whole numbers and the task states no tolerance")
    return None


def outside_precision(action: str, kept: Precision) -> list[Probe]:
    """The numeric answer in ``action`` moved outside the precision ``kept``: by :data:`OUTSIDE_FACTOR` times a
    stated band each way, or by :data:`WHOLE_NUMBER_MISS` each way for a whole number (no probe for an
    answer that is not one plain number)."""
    if len(action) > SHORT_ANSWER_CHARS:
        return []
    core = answer_core(action)
    value = parse_number(core)
    if value is None or "/" in core or core not in action:
        return []
    step = OUTSIDE_FACTOR * kept.band if kept.band else WHOLE_NUMBER_MISS
    template = around(action, core)
    probes = []
    for offset in (step, -step):
        text = decimal_text(value + offset)
        if text is not None:
            probes.append(Probe(template.render(text), f"the answer moved by {float(offset):+g}, outside the "
                                                       f"precision ({kept.said})"))
    return probes
