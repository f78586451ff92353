"""The design language: round trips, precise errors, and no other exception for any text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.designer.parsing import ExtractionError
from spade_core.smallworld.family import Design, all_designs
from spade_core.smallworld.language import OPENING, DesignLanguageError, extract_design, render_design


@pytest.mark.parametrize("design", all_designs())
def test_every_design_round_trips(design: Design) -> None:
    assert extract_design(render_design(design)) == design


def test_a_completion_cut_before_the_closing_fence_still_counts() -> None:
    assert extract_design(OPENING + " band=3 mode=1") == Design(3, 1)
    assert extract_design("Sure!\n" + OPENING + " mode=0 band=2\n```\nThat is my design.") == Design(2, 0)


def test_out_of_range_values_are_syntax_and_reach_the_validator() -> None:
    design = extract_design(OPENING + " band=9 mode=1")
    assert design == Design(9, 1) and not design.in_range and design.category == "invalid"


@pytest.mark.parametrize(("text", "needle"), [
    ("", "empty"),
    ("band=1 mode=1", "no ```env block"),
    ("```env\nfamily: maze\nknobs: band=1 mode=1\n```", "family 'maze' is unknown"),
    (OPENING + " band=1", "mode not set"),
    (OPENING + " band=1 band=2 mode=1", "'band' is set twice"),
    (OPENING + " band=1 mode=1 speed=3", "knob 'speed' is unknown"),
    (OPENING + " band=one mode=1", "besides name=integer"),
    ("```env\nfamily: relay\nfamily: relay\nknobs: band=1 mode=1", "appears twice"),
    ("```env\nfamily: relay\ncolour: red\nknobs: band=1 mode=1", "unexpected line"),
])
def test_malformed_programs_say_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(DesignLanguageError, match=needle.replace("(", r"\(")):
        extract_design(text)


@given(st.text(max_size=200))
def test_any_text_gives_a_design_or_a_language_error(text: str) -> None:
    try:
        design = extract_design(text)
    except ExtractionError as error:
        assert isinstance(error, DesignLanguageError) and str(error)
    else:
        assert isinstance(design, Design)


@given(st.text(alphabet=st.sampled_from(list(" =\nabdemnoq0123456789-_")), max_size=40))
def test_text_after_the_opening_never_raises_anything_else(tail: str) -> None:
    try:
        extract_design(OPENING + tail)
    except DesignLanguageError:
        pass
