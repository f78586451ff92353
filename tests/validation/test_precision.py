"""The precision a numeric answer must keep (what the observation states, or what whole-number answers or short
decimals imply) and the probes just outside it, which the verifier stage plays."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from spade_core.mutation.operators import mutants
from spade_core.validation import validate_source
from spade_core.validation.answer_numbers import answer_number
from spade_core.validation.hint_leaks import answer_core, parse_number
from spade_core.validation.precision import (
    IMPLIED_MAX_PLACES,
    IMPLIED_MISS_UNITS,
    OUTSIDE_FACTOR,
    outside_precision,
    precision,
    stated_bands,
)
from spade_core.validation.probes import listed_short_form, near_misses, scaled_misses

CORPUS = Path(__file__).parent


@given(st.decimals(min_value="0.001", max_value="50", places=3), st.integers(1, 10 ** 6))
def test_a_stated_band_is_probed_outside_it_both_ways(band: object, answer: int) -> None:
    kept = precision(f"Reply as \\boxed{{x}}. Answers within {band} are accepted.", f"\\boxed{{{answer}}}")
    assert kept is not None and kept.band == Fraction(str(band))
    moved = [parse_number(answer_core(p.action)) for p in outside_precision(f"\\boxed{{{answer}}}", kept)]
    assert sorted(abs(m - answer) for m in moved if m is not None) == [OUTSIDE_FACTOR * kept.band] * 2


@given(st.integers(-10 ** 6, 10 ** 6))
def test_whole_number_answers_with_nothing_stated_are_exact(answer: int) -> None:
    kept = precision("Opening balance: 12\nWhat is the closing balance? Answer as \\boxed{x}.",
                     f"\\boxed{{{answer}}}", ["\\boxed{7}", "\\boxed{-3}"])
    assert kept is not None and kept.band == 0
    for probe in outside_precision(f"\\boxed{{{answer}}}", kept):
        value = parse_number(answer_core(probe.action))
        assert value is not None and value.denominator != 1  # a fraction no whole-number answer is


def test_relative_and_rounding_statements_are_read_as_bands() -> None:
    assert [b.band for b in stated_bands("Answers within 0.5% of the exact value are accepted.", Fraction(2000))] \
        == [10]
    assert [b.band for b in stated_bands("Round to the nearest whole number.", Fraction(7))] == [Fraction(1, 2)]
    assert stated_bands("Reach the harbour within the move budget.", Fraction(7)) == []


def test_no_precision_is_probed_where_none_can_be_read() -> None:
    # words about precision these rules cannot turn into a band: the probes stay off
    assert precision("Give h(3) to 10 decimal places as \\boxed{value}.", "\\boxed{6.1989356882}") is None
    assert precision("Give the mass to three significant figures.", "\\boxed{412}") is None
    # decimals with nothing stated keep the near misses' own tolerance band
    assert precision("What is the period?", "\\boxed{2.006409}") is None
    # decimals longer than a rounding a task would pick: a float as computed, whose tolerance the task may choose
    assert precision("What is the ratio?", "\\boxed{12}", ["\\boxed{12.5}", "\\boxed{0.1234}"]) is None
    # two numbers in one answer: no one number to move
    assert precision("Where?", "12.5 N 3.25 E", ["1.5 N 2.0 E"]) is None
    assert precision("Pick a word.", "castle") is None


def test_a_tolerance_multiplied_on_whole_number_answers_is_rejected_at_the_verifier() -> None:
    source = (CORPUS / "invariants_corpus" / "good" / "cash_book_two_tries.py").read_text()
    assert "< 0.005:" in source
    assert validate_source(source).accepted
    (widened,) = mutants(source, "multiply_tolerance")  # 0.005 x 100: a check that rounds to the nearest whole number
    assert "< 0.5:" in widened.source and validate_source(widened.source).accepted
    report = validate_source(source.replace("< 0.005:", "< 0.75:"))  # accepts 12.7 for 12
    assert report.failed_stage == "verifier", report.message
    assert "whole numbers" in report.message and "+0.6" in report.message, report.message


def test_a_verifier_rounding_to_the_nearest_whole_number_is_sound() -> None:
    source = (CORPUS / "invariants_corpus" / "good" / "cash_book_two_tries.py").read_text()
    rounding = source.replace("if abs(value - self.closing()) < 0.005:", "if round(value) == self.closing():")
    assert rounding != source
    report = validate_source(rounding)
    assert report.accepted, report.message


def test_a_shorter_decimal_inside_a_stated_tolerance_is_still_accepted() -> None:
    source = (CORPUS / "gate" / "good" / "ferry_crossing.py").read_text()
    shorter = source.replace('f"\\\\boxed{{{self.minutes():.6f}}}"', 'f"\\\\boxed{{{self.minutes():.2f}}}"')
    assert shorter != source
    for variant in (source, shorter):
        report = validate_source(variant)
        assert report.accepted, report.message


@given(st.integers(1, IMPLIED_MAX_PLACES), st.integers(-10 ** 7, 10 ** 7),
       st.sampled_from(["{}", "\\boxed{{{}}}", "{} km", "€{}", '{{"name": "finish", "arguments": {{"answer": "{}"}}}}']))
def test_short_decimals_with_nothing_stated_are_probed_ten_units_of_their_last_place_off(
        places: int, scaled: int, form: str) -> None:
    digits = str(abs(scaled)).rjust(places + 1, "0")
    answer = form.format(("-" if scaled < 0 else "") + digits[:-places] + "." + digits[-places:])  # e.g. -0.050
    kept = precision("What is it? Answer like the example.", answer, [form.format("3.5")], whole_numbers=False)
    assert kept is not None and kept.band == Fraction(1, 10 ** places)
    number = answer_number(answer)
    assert number is not None
    moved = sorted(n.value - number.value for n in map(answer_number, (p.action for p in outside_precision(answer, kept)))
                   if n is not None)
    assert moved == [-IMPLIED_MISS_UNITS * kept.band, IMPLIED_MISS_UNITS * kept.band]


def test_the_finest_place_of_the_references_answers_is_the_precision() -> None:
    # a reference that trims zeros (7.083, 12.5, 4 km) answers to its finest place on every seed
    kept = precision("How far does she go? Answer in km.", "12.5 km", ["7.083 km", "4 km"], whole_numbers=True)
    assert kept is not None and kept.band == Fraction(1, 1000)
    assert [p.action for p in outside_precision("12.5 km", kept)] == ["12.51 km", "12.49 km"]
    # whole-number tool answers name items as often as they count them: only numeric domains get the whole rule
    assert precision("Which room?", "12", ["7"], whole_numbers=False) is None


def test_a_stated_band_is_probed_in_the_answers_own_places() -> None:
    kept = precision("Each share is rounded up to the next cent.", "65.40")
    assert kept is not None and kept.band == Fraction(1, 200)
    assert [p.action for p in outside_precision("65.40", kept)] == ["65.42", "65.38"]


def test_cutting_an_answer_to_the_same_number_is_not_a_near_miss() -> None:
    for answer, same in (("0.60", "0.6"), ("12.00", "12"), ("35.24 €", "35.24 "), ("12.50 km", "12.5 km")):
        assert same not in [p.action for p in near_misses(answer, "math")], answer
    assert "0.6" in [p.action for p in near_misses("0.61", "math")]


def test_a_quantity_with_its_unit_word_shortened_or_left_out_is_not_a_near_miss() -> None:
    for answer, same in (("Answer: 2219/5 dollars", "Answer: 2219/5 dollar"), ("3 h 20 min", "3 h 20 mi"),
                         ("2219/5 dollars", "2219/5 ")):
        assert same not in [p.action for p in near_misses(answer, "math")], answer
    assert "x = 5, y = " in [p.action for p in near_misses("x = 5, y = 7", "math")]
    assert "AB12C" in [p.action for p in near_misses("AB12CD", "math")]


def test_a_short_form_is_an_equivalent_only_where_the_task_lists_it() -> None:
    listing = "Reply up, down, left or right (or u/d/l/r) to walk one square."
    assert listed_short_form("u", "up", listing) and listed_short_form("Move: l", "Move: left", listing)
    assert not listed_short_form("lef", "left", listing)  # a cut the task never lists
    assert not listed_short_form("u", "up", "Reply up, down, left or right to walk one square.")
    assert not listed_short_form("Pari", "Paris", "Name the capital: Paris or Lyon.")
    assert not listed_short_form("4", "42", "Pick one of 4/42/420.")  # numbers are not spellings


def test_a_whole_euro_comparison_of_a_price_to_the_cent_is_rejected_at_the_verifier() -> None:
    good = (CORPUS / "gate" / "good" / "unit_price.py").read_text()
    assert validate_source(good).accepted
    flawed = (CORPUS / "gate" / "lax_verifier" / "unit_price_whole_euros.py").read_text()
    report = validate_source(flawed)
    assert report.failed_stage == "verifier", report.message
    assert "2 decimal places" in report.message, report.message


def test_a_unit_slip_is_tried_both_ways_in_the_answers_own_form() -> None:
    moved = [p.action for p in scaled_misses("\\boxed{25}")]
    assert "\\boxed{90}" in moved and "\\boxed{324}" in moved and "\\boxed{2.5}" in moved  # km/h for m/s, its square
    assert [p.action for p in scaled_misses("12.5 km")][:2] == ["125 km", "1.25 km"]
    assert scaled_misses("\\boxed{0}") == [] and scaled_misses("\\boxed{1/3}") == []
