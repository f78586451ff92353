"""A calendar tool: add, list, move and cancel events, and find the earliest free slot.

Days are ISO dates (``2025-03-14``), times are ``HH:MM`` (24-hour). Events never cross midnight. Adding or
moving an event onto a busy time is refused with the event it would overlap; a calendar *given* with
overlapping events (a double-booked scenario) is allowed, so environments can ask for conflicts to be resolved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from spade_core import linear_re
from spade_tools.base import ToolDef, ToolError, ToolSet
from spade_tools.schema import obj

MAX_EVENTS = 2000
MAX_TITLE_CHARS = 100
DAY_PATTERN = linear_re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
TIME_PATTERN = linear_re.compile(r"^(\d{1,2}):(\d{2})$")
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

_DAY = {"type": "string", "minLength": 1, "maxLength": 10, "description": "date as YYYY-MM-DD"}
_TIME = {"type": "string", "minLength": 1, "maxLength": 5, "description": "time as HH:MM (24-hour)"}
_DURATION = {"type": "integer", "minimum": 1, "maximum": 1440, "description": "length in minutes"}
_EVENT_ID = {"type": "string", "minLength": 1, "maxLength": 20, "description": "event id such as 'e3'"}


def parse_day(day: Any) -> str:
    """Validate an ISO date string; return it unchanged or raise ToolError."""
    match = DAY_PATTERN.match(day) if isinstance(day, str) else None
    if not match:
        raise ToolError(f"day must look like YYYY-MM-DD, got {str(day)[:20]!r}")
    year, month, dom = (int(g) for g in match.groups())
    if not 1 <= month <= 12:
        raise ToolError(f"day {day!r} has no month {month}")
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    last = 29 if month == 2 and leap else _DAYS_IN_MONTH[month - 1]
    if not 1 <= dom <= last:
        raise ToolError(f"day {day!r} does not exist")
    return day


def parse_time(text: Any, *, allow_midnight_end: bool = False) -> int:
    """``"HH:MM"`` -> minutes after midnight, or raise ToolError."""
    match = TIME_PATTERN.match(text) if isinstance(text, str) else None
    if not match:
        raise ToolError(f"time must look like HH:MM, got {str(text)[:20]!r}")
    hours, minutes = int(match.group(1)), int(match.group(2))
    total = hours * 60 + minutes
    if minutes > 59 or total > 24 * 60 or (total == 24 * 60 and not allow_midnight_end):
        raise ToolError(f"time {text!r} is not a valid time of day")
    return total


def format_time(minutes: int) -> str:
    """Minutes after midnight -> ``"HH:MM"``."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Calendar(ToolSet):
    """Events owned by one environment.

    ``Calendar(events=[{"title": "Standup", "day": "2025-03-14", "start": "09:00", "end": "09:15"}])``; each
    event gets an id ``e1``, ``e2``, ... in order. Working hours (``day_start``..``day_end``) are the default
    window of ``find_free_slot``. ``snapshot()`` is the sorted list of events without ids (ids depend on the
    order events were created, which the comparison should not).
    """

    KIND = "calendar"
    TOOL_DEFS = (
        ToolDef("list_events", "List the events of one day (or of every day), sorted by start time.", obj({
            "day": {**_DAY, "description": "date as YYYY-MM-DD; omit for every day"},
        })),
        ToolDef("add_event", "Add an event; refused if it overlaps another event.", obj({
            "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS},
            "day": _DAY, "start": _TIME, "duration_minutes": _DURATION,
        }, ["title", "day", "start", "duration_minutes"])),
        ToolDef("move_event", "Move an event to a new day and start time, keeping its length; refused if it would "
                              "overlap another event.", obj({
            "event_id": _EVENT_ID, "day": _DAY, "start": _TIME,
        }, ["event_id", "day", "start"])),
        ToolDef("cancel_event", "Cancel (delete) an event.", obj({"event_id": _EVENT_ID}, ["event_id"])),
        ToolDef("find_free_slot", "Earliest start time on a day where an event of the given length fits between "
                                  "'earliest' and 'latest' without overlapping any event.", obj({
            "day": _DAY, "duration_minutes": _DURATION,
            "earliest": {**_TIME, "description": "HH:MM; default: start of working hours"},
            "latest": {**_TIME, "description": "HH:MM the event must end by; default: end of working hours"},
            "exclude_event_id": {**_EVENT_ID, "description": "ignore this event (useful when looking for a place "
                                                             "to move it)"},
        }, ["day", "duration_minutes"])),
    )

    def __init__(self, events: Sequence[Mapping[str, Any]] = (), day_start: str = "09:00",
                 day_end: str = "17:00") -> None:
        try:
            self._day_start = parse_time(day_start)
            self._day_end = parse_time(day_end, allow_midnight_end=True)
        except ToolError as err:
            raise ValueError(f"working hours: {err}") from None
        if self._day_start >= self._day_end:
            raise ValueError("working hours: day_start must be before day_end")
        self._events: dict[str, dict[str, Any]] = {}
        self._next_id = 1
        for event in events:
            try:
                title = self._title(event.get("title"))
                day = parse_day(event.get("day"))
                start = parse_time(event.get("start"))
                if "end" in event:
                    end = parse_time(event.get("end"), allow_midnight_end=True)
                else:
                    end = start + int(event.get("duration_minutes", 0))
            except (ToolError, TypeError, ValueError) as err:
                raise ValueError(f"event {event!r}: {err}") from None
            if not start < end <= 24 * 60:
                raise ValueError(f"event {event!r}: needs start < end within one day")
            self._insert(title, day, start, end)

    # -- state ----------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        events = [
            {"title": e["title"], "day": e["day"], "start": format_time(e["start"]), "end": format_time(e["end"])}
            for e in self._events.values()
        ]
        events.sort(key=lambda e: (e["day"], e["start"], e["end"], json.dumps(e, sort_keys=True)))
        return {"events": events}

    # -- helpers --------------------------------------------------------------------------------------------
    @staticmethod
    def _title(title: Any) -> str:
        if not isinstance(title, str) or not title.strip():
            raise ToolError("title must be a non-empty string")
        if len(title) > MAX_TITLE_CHARS:
            raise ToolError(f"title has at most {MAX_TITLE_CHARS} characters")
        return title.strip()

    def _insert(self, title: str, day: str, start: int, end: int) -> dict[str, Any]:
        if len(self._events) >= MAX_EVENTS:
            raise ToolError(f"the calendar is full ({MAX_EVENTS} events)")
        event_id = f"e{self._next_id}"
        self._next_id += 1
        self._events[event_id] = {"id": event_id, "title": title, "day": day, "start": start, "end": end}
        return self._show(self._events[event_id])

    @staticmethod
    def _show(event: Mapping[str, Any]) -> dict[str, Any]:
        return {"id": event["id"], "title": event["title"], "day": event["day"],
                "start": format_time(event["start"]), "end": format_time(event["end"])}

    def _event(self, event_id: str) -> dict[str, Any]:
        if event_id not in self._events:
            known = ", ".join(sorted(self._events, key=lambda k: int(k[1:]))[:30]) or "none"
            raise ToolError(f"no event with id '{event_id}' (existing ids: {known})")
        return self._events[event_id]

    def _clash(self, day: str, start: int, end: int, ignore: str | None = None) -> dict[str, Any] | None:
        for event in sorted(self._events.values(), key=lambda e: (e["start"], int(e["id"][1:]))):
            if event["id"] != ignore and event["day"] == day and event["start"] < end and start < event["end"]:
                return event
        return None

    def _span(self, start: str, duration: int) -> tuple[int, int]:
        begin = parse_time(start)
        end = begin + duration
        if end > 24 * 60:
            raise ToolError("an event must end by 24:00 on the same day")
        return begin, end

    # -- tools ----------------------------------------------------------------------------------------------
    def list_events(self, day: str | None = None) -> dict[str, Any]:
        if day is not None:
            parse_day(day)
        chosen = [e for e in self._events.values() if day is None or e["day"] == day]
        chosen.sort(key=lambda e: (e["day"], e["start"], int(e["id"][1:])))
        result: dict[str, Any] = {"events": [self._show(e) for e in chosen]}
        if day is not None:
            result = {"day": day, **result}
        return result

    def add_event(self, title: str, day: str, start: str, duration_minutes: int) -> dict[str, Any]:
        title, day = self._title(title), parse_day(day)
        begin, end = self._span(start, duration_minutes)
        clash = self._clash(day, begin, end)
        if clash is not None:
            raise ToolError(f"{day} {format_time(begin)}-{format_time(end)} overlaps '{clash['title']}' "
                            f"({clash['id']}, {format_time(clash['start'])}-{format_time(clash['end'])})")
        return {"event": self._insert(title, day, begin, end)}

    def move_event(self, event_id: str, day: str, start: str) -> dict[str, Any]:
        event = self._event(event_id)
        day = parse_day(day)
        begin, end = self._span(start, event["end"] - event["start"])
        clash = self._clash(day, begin, end, ignore=event_id)
        if clash is not None:
            raise ToolError(f"{day} {format_time(begin)}-{format_time(end)} overlaps '{clash['title']}' "
                            f"({clash['id']}, {format_time(clash['start'])}-{format_time(clash['end'])})")
        event["day"], event["start"], event["end"] = day, begin, end
        return {"event": self._show(event)}

    def cancel_event(self, event_id: str) -> dict[str, Any]:
        event = self._event(event_id)
        del self._events[event_id]
        return {"cancelled": self._show(event)}

    def find_free_slot(self, day: str, duration_minutes: int, earliest: str | None = None,
                       latest: str | None = None, exclude_event_id: str | None = None) -> dict[str, Any]:
        day = parse_day(day)
        low = self._day_start if earliest is None else parse_time(earliest)
        high = self._day_end if latest is None else parse_time(latest, allow_midnight_end=True)
        if exclude_event_id is not None:
            self._event(exclude_event_id)
        busy = sorted(
            (e["start"], e["end"]) for e in self._events.values()
            if e["day"] == day and e["id"] != exclude_event_id
        )
        candidate = low
        for start, end in busy:
            if start >= candidate + duration_minutes:
                break
            candidate = max(candidate, end)
        if candidate + duration_minutes > high:
            raise ToolError(f"no free slot of {duration_minutes} minutes on {day} between "
                            f"{format_time(low)} and {format_time(high)}")
        return {"day": day, "start": format_time(candidate), "end": format_time(candidate + duration_minutes)}
