"""Calendar: find the double bookings in a week and resolve each by the stated policy."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar

ENV_SPEC = {
    "name": "ResolveConflicts",
    "domain": "tool_use",
    "description": "Find every pair of overlapping events in a calendar and resolve it: cancel the optional one, "
                   "or move the later one to the earliest free time that day; scored by the final calendar.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "days": {"min": 1, "max": 5, "default": 2,
                 "description": "days in the calendar, each with one double booking hidden among other events"},
    },
    "tools": ["list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Calendar hygiene: detecting overlapping intervals and applying a conflict policy (drop "
                 "optional items, otherwise reschedule the later commitment to the earliest free time).",
    "tags": ["calendar", "intervals", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

MONDAYS = [1, 8, 15, 22]
TITLES = ["Standup", "Architecture review", "Client call", "Lunch with Priya", "Code review", "Planning poker",
          "Vendor demo", "Mentoring", "Ops handover", "Board prep", "Benefits Q&A", "Team retro", "Budget sync"]


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class ResolveConflicts:
    def __init__(self, days=2):
        self.days = days
        self.events = []
        self.episode = None

    def reset(self, rng, options):
        monday = rng.choice(MONDAYS)
        days = [f"2025-09-{monday + i:02d}" for i in range(self.days)]
        events = []
        for day in days:
            placed = self._day(rng, day)
            tries = 1
            while not self._resolvable(placed) and tries < 50:
                placed = self._day(rng, day)
                tries = tries + 1
            events.extend(placed)
        self.events = events
        planner = Calendar(events)
        listing = planner.call("list_events", {})["events"]
        reference = [{"name": "list_events", "arguments": {}}]
        for day in days:
            first, second = self._clash([e for e in listing if e["day"] == day])
            optional = [e for e in (first, second) if e["title"].endswith("(optional)")]
            if optional:
                reference.append({"name": "cancel_event", "arguments": {"event_id": optional[0]["id"]}})
                planner.call("cancel_event", {"event_id": optional[0]["id"]})
                continue
            length = self._minutes(second["end"]) - self._minutes(second["start"])
            query = {"day": day, "duration_minutes": length, "exclude_event_id": second["id"]}
            slot = planner.call("find_free_slot", query)
            reference.append({"name": "find_free_slot", "arguments": query})
            reference.append({"name": "move_event", "arguments": {
                "event_id": second["id"], "day": day, "start": slot["start"]}})
            planner.call("move_event", {"event_id": second["id"], "day": day, "start": slot["start"]})
        first_day, last_day = days[0], days[-1]
        span = first_day if first_day == last_day else f"{first_day} to {last_day}"
        task = (
            f"The calendar for {span} has double bookings: on each of these days exactly two events overlap. "
            f"Resolve every overlap with this policy: if one of the two events has a title ending in "
            f"'(optional)', cancel that one. Otherwise keep the event that starts first and move the other one, "
            f"keeping its length, to the earliest start time on the same day within working hours (09:00-17:00) "
            f"at which it overlaps no other event. Do not change anything else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _day(self, rng, day):
        titles = rng.sample(TITLES, 4)
        cursor = 9 * 60
        placed = []
        for title in titles[:3]:
            cursor = cursor + rng.choice([0, 30, 60])
            length = rng.choice([30, 60, 90])
            placed.append({"title": title, "day": day, "start": cursor, "end": cursor + length})
            cursor = cursor + length
        target = rng.choice(placed)
        length = rng.choice([30, 45, 60])
        optional = rng.random() < 0.4
        if optional and rng.random() < 0.5:
            start = target["start"] - 15
        else:
            start = target["start"] + rng.choice([15, 30]) if target["end"] - target["start"] > 30 else target["start"] + 15
        title = titles[3] + (" (optional)" if optional else "")
        placed.append({"title": title, "day": day, "start": start, "end": start + length})
        rng.shuffle(placed)
        return [{"title": e["title"], "day": day, "start": hhmm(e["start"]), "end": hhmm(e["end"])} for e in placed]

    def _resolvable(self, placed):
        """Exactly one overlapping pair, and the event to move has somewhere to go."""
        pairs = 0
        for i in range(len(placed)):
            for j in range(i + 1, len(placed)):
                if placed[i]["start"] < placed[j]["end"] and placed[j]["start"] < placed[i]["end"]:
                    pairs = pairs + 1
        if pairs != 1:
            return False
        planner = Calendar(placed)
        day = placed[0]["day"]
        listing = planner.call("list_events", {"day": day})["events"]
        first, second = self._clash(listing)
        if first["title"].endswith("(optional)") or second["title"].endswith("(optional)"):
            return True
        length = self._minutes(second["end"]) - self._minutes(second["start"])
        slot = planner.call("find_free_slot", {"day": day, "duration_minutes": length, "exclude_event_id": second["id"]})
        return "error" not in slot

    def _clash(self, today):
        for i in range(len(today)):
            for j in range(i + 1, len(today)):
                if today[i]["start"] < today[j]["end"] and today[j]["start"] < today[i]["end"]:
                    return sorted([today[i], today[j]], key=lambda e: e["start"])
        return None

    def _minutes(self, text):
        return int(text[:2]) * 60 + int(text[3:])

    def _toolbox(self):
        return Calendar(self.events)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} When you look for a new time for an event, ignore the event "
                f"itself: the free-slot tool can exclude one event id.")

    def reference_action(self):
        return self.episode.reference_action()
