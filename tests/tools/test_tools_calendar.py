"""The calendar tool: overlap refusal, moves, and an exact earliest-free-slot search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.base import ToolError
from spade_tools.calendar_tool import Calendar, format_time, parse_time

DAY = "2025-03-14"


def fresh() -> Calendar:
    return Calendar([
        {"title": "Standup", "day": DAY, "start": "09:00", "end": "09:15"},
        {"title": "Lunch", "day": DAY, "start": "12:00", "duration_minutes": 60},
        {"title": "Other day", "day": "2025-03-15", "start": "09:00", "end": "17:00"},
    ])


def test_add_list_move_cancel() -> None:
    cal = fresh()
    added = cal.call("add_event", {"title": "Review", "day": DAY, "start": "10:00", "duration_minutes": 30})
    assert added["event"] == {"id": "e4", "title": "Review", "day": DAY, "start": "10:00", "end": "10:30"}
    assert [e["title"] for e in cal.call("list_events", {"day": DAY})["events"]] == ["Standup", "Review", "Lunch"]
    assert len(cal.call("list_events")["events"]) == 4
    assert cal.call("move_event", {"event_id": "e4", "day": DAY, "start": "13:00"})["event"]["end"] == "13:30"
    assert cal.call("cancel_event", {"event_id": "e1"})["cancelled"]["title"] == "Standup"
    assert "no event with id 'e1'" in cal.call("cancel_event", {"event_id": "e1"})["error"]


@pytest.mark.parametrize(("name", "arguments", "needle"), [
    ("add_event", {"title": "X", "day": DAY, "start": "09:10", "duration_minutes": 30}, "overlaps 'Standup' (e1"),
    ("add_event", {"title": "X", "day": "2025-02-30", "start": "10:00", "duration_minutes": 30}, "does not exist"),
    ("add_event", {"title": "X", "day": "14/03/2025", "start": "10:00", "duration_minutes": 30}, "YYYY-MM-DD"),
    ("add_event", {"title": "X", "day": DAY, "start": "25:00", "duration_minutes": 30}, "not a valid time"),
    ("add_event", {"title": "X", "day": DAY, "start": "23:50", "duration_minutes": 30}, "by 24:00"),
    ("add_event", {"title": " ", "day": DAY, "start": "10:00", "duration_minutes": 30}, "title"),
    ("add_event", {"title": "X", "day": DAY, "start": "10:00", "duration_minutes": 0}, "must be >= 1"),
    ("move_event", {"event_id": "e2", "day": DAY, "start": "09:00"}, "overlaps 'Standup'"),
    ("move_event", {"event_id": "e9", "day": DAY, "start": "09:00"}, "no event with id 'e9'"),
    ("find_free_slot", {"day": "2025-03-15", "duration_minutes": 30}, "no free slot"),
])
def test_refused_calls_change_nothing(name: str, arguments: dict, needle: str) -> None:
    cal = fresh()
    before = cal.snapshot()
    assert needle in cal.call(name, arguments)["error"]
    assert cal.snapshot() == before


def test_find_free_slot_window_and_exclusion() -> None:
    cal = fresh()
    assert cal.call("find_free_slot", {"day": DAY, "duration_minutes": 15})["start"] == "09:15"
    assert cal.call("find_free_slot", {"day": DAY, "duration_minutes": 180})["start"] == "13:00"
    assert cal.call("find_free_slot", {"day": DAY, "duration_minutes": 30, "earliest": "11:45"})["start"] == "13:00"
    assert "no free slot" in cal.call("find_free_slot", {"day": DAY, "duration_minutes": 60, "latest": "09:30"})["error"]
    slot = cal.call("find_free_slot", {"day": DAY, "duration_minutes": 60, "earliest": "12:00", "exclude_event_id": "e2"})
    assert slot["start"] == "12:00"


def test_snapshot_ignores_ids_and_creation_order() -> None:
    a, b = Calendar(), Calendar()
    a.call("add_event", {"title": "A", "day": DAY, "start": "10:00", "duration_minutes": 30})
    a.call("add_event", {"title": "B", "day": DAY, "start": "11:00", "duration_minutes": 30})
    b.call("add_event", {"title": "B", "day": DAY, "start": "11:00", "duration_minutes": 30})
    b.call("add_event", {"title": "A", "day": DAY, "start": "10:00", "duration_minutes": 30})
    assert a.snapshot() == b.snapshot()
    assert Calendar(a.snapshot()["events"]).snapshot() == a.snapshot()


def test_time_helpers() -> None:
    assert parse_time("9:05") == 545 and format_time(545) == "09:05"
    assert parse_time("24:00", allow_midnight_end=True) == 1440
    with pytest.raises(ToolError, match="not a valid time"):
        parse_time("24:00")


EVENTS = st.lists(st.tuples(st.integers(8 * 60, 18 * 60), st.integers(5, 120)), max_size=8)


@settings(derandomize=True, deadline=None, max_examples=80)
@given(events=EVENTS, duration=st.integers(5, 240), earliest=st.integers(8 * 60, 12 * 60))
def test_find_free_slot_is_the_earliest_fit(events, duration, earliest) -> None:
    """Compare with a minute-by-minute brute force over the window [earliest, 17:00]."""
    cal = Calendar([{"title": f"t{i}", "day": DAY, "start": format_time(s), "duration_minutes": d}
                    for i, (s, d) in enumerate(events)])
    busy = [(s, s + d) for s, d in events]
    expected = next((t for t in range(earliest, 17 * 60 - duration + 1)
                     if all(not (t < e and s < t + duration) for s, e in busy)), None)
    result = cal.call("find_free_slot", {"day": DAY, "duration_minutes": duration, "earliest": format_time(earliest)})
    if expected is None:
        assert "error" in result
    else:
        assert result["start"] == format_time(expected)
        added = cal.call("add_event", {"title": "new", "day": DAY, "start": result["start"], "duration_minutes": duration})
        assert "error" not in added
