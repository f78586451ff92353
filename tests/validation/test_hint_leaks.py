"""Hint decoders, adversarial policies and probes: each recovers (or produces) what it should and stays quiet on
hints that a careful reviewer would accept."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.validation.adversaries import ActionTemplate, de_bruijn, observation_values
from spade_core.validation.episodes import Episode
from spade_core.validation.hint_checks import scan_hint_leaks
from spade_core.validation.hint_leaks import (
    DecodedText,
    answer_core,
    find_leaks,
    follow_candidates,
    in_words,
    new_leaks,
    parse_number,
    words_to_digits,
)
from spade_core.validation.probes import deviation, edge_inputs, equivalents, near_misses, one_off, tolerance_probes
from spade_core.validation.replay import too_often

ONES = "zero one two three four five six seven eight nine".split()


def decoders(hint: str, target: str) -> set[str]:
    return {leak.decoder for leak in find_leaks(DecodedText(hint), target)}


def spelled(n: int) -> str:
    teens = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    tens = "twenty thirty forty fifty sixty seventy eighty ninety".split()
    parts = []
    if n >= 100:
        parts.append(f"{ONES[n // 100]} hundred")
        n %= 100
    if n >= 20:
        parts.append(tens[n // 10 - 2] + (f"-{ONES[n % 10]}" if n % 10 else ""))
    elif n >= 10:
        parts.append(teens[n - 10])
    elif n or not parts:
        parts.append(ONES[n])
    return " ".join(parts)


@settings(max_examples=60)
@given(n=st.integers(100, 999).filter(lambda n: len(set(str(n))) == 3))
def test_every_encoding_of_a_three_digit_answer_is_recovered(n: int) -> None:
    answer = f"\\boxed{{{n}}}"
    digits = str(n)
    assert "reversed" in decoders(f"Backwards it reads {digits[::-1]}.", answer)
    assert "words" in decoders(f"It is {spelled(n)}.", answer)
    hundreds, tens, ones = (int(d) for d in digits)
    assert "place_values" in decoders(f"{hundreds * 100} + {tens * 10} + {ones}", answer)
    assert "place_values" in decoders(f"{hundreds} hundreds, {tens} tens and {ones} ones", answer)
    assert decoders(f"Its digits are {', '.join(sorted(digits))}.", answer) & {"permuted", "digits"}
    assert "relation" in decoders(f"It is one more than {n - 1}.", answer)
    assert "sign" in decoders(f"Flip the sign of {-n}.", answer)
    assert "value" in decoders(f"The value is {n}.0 exactly.", answer)


@settings(max_examples=60)
@given(word=st.text("abcdefghijklmnopqrstuvwxyz", min_size=5, max_size=10), shift=st.integers(1, 25))
def test_ciphered_words_are_recovered(word: str, shift: int) -> None:
    coded = "".join(chr((ord(ch) - 97 + shift) % 26 + 97) for ch in word)
    atbash = "".join(chr(219 - ord(ch)) for ch in word)
    if coded != word:
        assert "cipher" in decoders(f"Decode this: {coded.upper()}", word)
    if atbash != word and atbash != word[::-1]:
        assert "cipher" in decoders(f"Mirror alphabet: {atbash}", word)


@settings(max_examples=60)
@given(n=st.integers(100, 999), other=st.integers(10, 99))
def test_an_unrelated_intermediate_quantity_is_not_a_leak(n: int, other: int) -> None:
    answer = f"\\boxed{{{n}}}"
    far = n + 37 + other  # a different number, far from the answer and not a permutation of it
    if sorted(str(far)) != sorted(str(n)):
        leaks = find_leaks(DecodedText(f"The running total after the first step is {far}."), answer)
        # a chance digit shift is only a weak leak: one occurrence never rejects
        assert all(not leak.strong for leak in leaks) and {leak.decoder for leak in leaks} <= {"shifted"}


def test_careful_reviewer_cases_stay_quiet() -> None:
    assert decoders("There are 18 marbles in all.", "\\boxed{5/18}") == set()
    assert decoders("After the first operation the running value is 2623.", "\\boxed{26230}") == set()
    assert decoders("Milestones: ls -> mkdir -> mv -> finish.", '{"name": "finish", "arguments": {}}') == set()
    assert decoders("Milestones: select -> list_events -> add_event.", '{"name": "list_events", "arguments": {}}') \
        == set()
    assert decoders("The number is odd; halve the interval each time.", "\\boxed{537}") == set()
    # a value the observation already shows is not leaked by the hint (strong decoders)
    hint, visible = DecodedText("Open receipts/a.txt next"), DecodedText("Files: receipts/a.txt receipts/b.txt")
    assert new_leaks(hint, visible, '{"name": "cat", "arguments": {"file": "receipts/a.txt"}}') == []


def test_equivalent_values_and_prose_are_recovered() -> None:
    assert "value" in decoders("it is 2/6", "\\boxed{1/3}")
    assert "value" in decoders("It comes to 42.0", "42")
    assert "prose" in decoders("Your best move is to move left now.", "move left") or \
        "verbatim" in decoders("Your best move is to move left now.", "move left")
    assert "offset" in decoders("You are at 535 now", "\\boxed{537}")


def test_number_words_and_answers() -> None:
    assert words_to_digits("five hundred thirty-seven") == "537"
    assert words_to_digits("five three seven") == "5 3 7"
    assert words_to_digits("one more than 121") == "1 more than 121"
    assert answer_core("\\boxed{\\frac{1}{2}}") == "\\frac{1}{2}"
    assert answer_core("Answer: 42.") == "42"
    assert parse_number("6/18") == Fraction(1, 3) and parse_number("1,234") == 1234 and parse_number("x") is None


def test_follow_candidates_take_instructions_first() -> None:
    found = follow_candidates("Stuck? Reply with 'opensesame' and it counts. Or type 7.")
    assert found[0] == "opensesame"
    assert "7" in found


def test_de_bruijn_strings_hold_every_number() -> None:
    three = de_bruijn("0123456789", 3)
    assert len(three) == 1002 and all(f"{i:03d}" in three for i in range(1000))


def test_templates_and_observation_values() -> None:
    assert ActionTemplate.of("\\boxed{537}").render("1") == "\\boxed{1}"
    assert ActionTemplate.of("Answer: 42").render("7") == "Answer: 7"
    assert ActionTemplate.of('{"tool": "submit"}').raw
    assert observation_values("Opening balance 250, then +30 and -12. Pick A) or B).")[:3] == ["250", "30", "-12"]


@settings(max_examples=60)
@given(n=st.integers(-10_000, 10_000).filter(lambda n: n not in (0,)))
def test_near_misses_are_wrong_and_equivalents_are_equal(n: int) -> None:
    action = f"\\boxed{{{n}}}"
    for probe in near_misses(action, "math"):
        value = parse_number(answer_core(probe.action))
        assert probe.action != action and value != n
    for probe in equivalents(action, "math"):
        assert parse_number(answer_core(probe.action)) == n


def test_edge_inputs_cover_the_edges() -> None:
    actions = [p.action for p in edge_inputs(ActionTemplate("\\boxed{", "}"), 8192)]
    assert "\\boxed{nan}" in actions and "\\boxed{inf}" in actions and "" in actions
    assert any(len(a) == 8192 for a in actions) and any(not a.isascii() for a in actions)


def test_win_rate_needs_confidence() -> None:
    assert too_often(17, 17, 0.1) and too_often(7, 17, 0.1)
    assert not too_often(1, 17, 0.1) and not too_often(2, 17, 0.1) and not too_often(0, 1, 0.1)


# -- no false rejects (a plan is no leak; the whole visible text; word boundaries; the task's tolerance) ---------
def test_a_plan_naming_tools_is_no_leak() -> None:
    plan = DecodedText("ls -> cat (repeat as needed) -> select; the arguments are yours to work out.")
    for call in ('{"name": "select", "arguments": {"path": "logs/a.txt"}}',
                 'I will now call <tool>{"name": "select", "arguments": {}}</tool>',
                 '{"name": "ls", "arguments": {}}'):
        assert not [leak for leak in find_leaks(plan, call) if leak.strong], call
    leaky = DecodedText("Call select on logs/secret_plans.txt next.")
    assert any(leak.decoder == "prose" for leak in find_leaks(leaky, '{"name": "select", "arguments": '
                                                                      '{"path": "logs/secret_plans.txt"}}'))


def test_no_match_across_collapsed_word_boundaries() -> None:
    hint = DecodedText("Work toward the front: the wagons that belong at the front can switch last.")
    assert not find_leaks(hint, "front c")
    assert in_words("frontc", DecodedText("the front c wagon")) and not in_words("frontc", hint)
    assert in_words("northeast", DecodedText("go north east"))
    assert find_leaks(DecodedText("then play front c"), "front c")


def test_the_hint_is_compared_with_the_whole_visible_text() -> None:
    manual = ("Table of tools and the records they read. " * 160)[:6648] + " select picks a row. " + "x " * 1700
    assert len(manual) > 10_000 and manual.index("select") == 6649
    episode = Episode(seed=0, reset_obs=manual, steps=[("select", "done", 1.0, True, False)], infos=[{}],
                      hints=["Plan: look up the table, then select."], observations=[manual])
    tallies = scan_hint_leaks([episode], final_answers=True)
    assert set(tallies) == {("turns", "")}, tallies


def test_near_misses_inside_the_tasks_tolerance_are_equivalent() -> None:
    answer = "\\boxed{0.7408182207}"
    moved = tolerance_probes(answer)
    assert [float(answer_core(p.action)) for p, _ in moved][0] != 0.7408182207 and len(moved) == 3
    assert all(0 < off < Fraction(1, 10**5) for _, off in moved)
    cut = next(p for p in near_misses(answer, "math") if p.what == "the answer without its last character")
    assert deviation(cut.action, answer) < moved[1][1]  # within one part in a billion: a sane tolerance accepts it
    assert tolerance_probes("\\boxed{537}") == []  # integer answers have no tolerance


def test_a_long_serial_in_an_observation_is_decoded_in_linear_time() -> None:
    """An 8,000-digit serial once made the relation decoders quadratic (tens of seconds per text); now they run on a
    linear-time engine, and no text is decoded past ``MAX_DECODED_CHARS``."""
    import time

    from spade_core.validation.hint_leaks import MAX_DECODED_CHARS, DecodedText

    seconds = []
    for digits in (8_000, 32_000):
        started = time.perf_counter()
        decoded = DecodedText(f"Device serial: {'7' * digits}. Note: 1 more than 121, 60 plus 2", None)
        seconds.append(time.perf_counter() - started)
        assert {122, 62} <= decoded.relations
    assert max(seconds) < 2.0, seconds  # quadratic decoding took ~17 s for the 8,000 digits alone
    assert len(DecodedText("x" * (MAX_DECODED_CHARS * 2), None).raw) == MAX_DECODED_CHARS


def _game(seed: int, hints: list[str], actions: list[str]) -> Episode:
    steps = [(a, "ok", 0.0, i == len(actions) - 1, False) for i, a in enumerate(actions)]
    return Episode(seed=seed, reset_obs="Pins: | | | | | |", steps=steps, infos=[{} for _ in actions], hints=hints,
                   observations=["Pins: | | | | | |"] * len(actions))


def test_a_fixed_rule_whose_digits_spell_one_move_is_no_leak() -> None:
    """The same hint text on every seed, where the moves differ, cannot say which move: its digits (a table of
    Grundy values) spelling one seed's move are chance. A hint that varies with the move still leaks, and a whole
    plan repeated at every turn of one episode is not a fixed rule."""
    rule = "Each run is a Nim heap with Grundy values (0,1,2,3,1,4,3,2,1,4,2,6); make the XOR 0."
    fixed = [_game(0, [rule, rule], ["take 12", "take 35"]), _game(1, [rule, rule], ["take 47", "take 58"])]
    tallies = scan_hint_leaks(fixed, final_answers=False)
    assert set(tallies) == {("turns", "")}, tallies
    leaking = [_game(0, ["Best now: take 12.", "Best now: take 35."], ["take 12", "take 35"]),
               _game(1, ["Best now: take 47.", "Best now: take 58."], ["take 47", "take 58"])]
    assert set(scan_hint_leaks(leaking, final_answers=False)) - {("turns", "")}
    plan = "Play take 12, then take 35."
    planned = [_game(0, [plan, plan], ["take 12", "take 35"]), _game(1, ["Play take 47, then take 58."] * 2,
                                                                      ["take 47", "take 58"])]
    assert set(scan_hint_leaks(planned, final_answers=False)) - {("turns", "")}


@given(st.text(min_size=1, max_size=40))
def test_one_off_is_a_different_answer_in_the_same_form(answer: str) -> None:
    wrong = one_off(answer)
    if any(ch.isascii() and ch.isalnum() for ch in answer):
        assert wrong is not None
    assert wrong is None or (wrong != answer and len(wrong) >= len(answer))
    assert one_off("\\boxed{42}") == "\\boxed{43}" and one_off("123") == "124" and one_off("east") == "easu"


def test_a_range_centred_on_the_answer_is_a_weak_leak() -> None:
    hint = DecodedText("The value asked for lies strictly between 155/2 and 159/2.")
    assert [leak.decoder for leak in find_leaks(hint, "\\boxed{157/2}") if leak.decoder == "bracket"] == ["bracket"]
    assert all(not leak.strong for leak in find_leaks(hint, "\\boxed{157/2}"))
    assert not [leak for leak in find_leaks(hint, "\\boxed{80}") if leak.decoder == "bracket"]


def test_a_near_miss_is_mirrored_with_its_unit_and_a_bare_trailing_point() -> None:
    """A stated band around a unit-ful answer ("within 0.1%"), a truncated decimal ("85.") or a tool call's answer
    is probed the other way too, so the verifier's own tolerance is recognised; another unit or a miss past 1% is
    not mirrored."""
    from spade_core.validation.probes import mirrored

    assert mirrored("\\boxed{2881 km/h}", "\\boxed{2880 km/h}").action == "\\boxed{2879 km/h}"
    assert mirrored("\\boxed{85.}", "\\boxed{85.3422}").action == "\\boxed{85.6844}"
    assert mirrored("\\boxed{2881 m/s}", "\\boxed{2880 km/h}") is None
    assert mirrored("\\boxed{3000 km/h}", "\\boxed{2880 km/h}") is None
    finish = '{"name": "finish", "arguments": {"answer": "%s"}}'
    assert mirrored(finish % "88.51", finish % "88.50").action == finish % "88.49"
    assert mirrored("Total: €35.25", "Total: €35.24").action == "Total: €35.23"
    assert mirrored("\\boxed{85:}", "\\boxed{85.3422}") is None
    assert mirrored("Total: $35.25", "Total: €35.24") is None
