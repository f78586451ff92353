# shape: a BFCL-style multi-turn calendar task: read several days' events, then add one event in the earliest gap
"""Read a week's busy calendar day by day (list_events and find_free_slot change nothing) and book a meeting in the
earliest gap that fits it; scored by the final calendar, which only the one add_event changes."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar

ENV_SPEC = {
    "name": "CalendarEarliestSlot",
    "domain": "tool_use",
    "description": "Find the earliest free slot of a given length over several busy days with calendar tools and "
                   "book a meeting there; scored by the final calendar.",
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {"days": {"min": 2, "max": 5, "default": 4, "description": "days to search"}},
    "tools": ["list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Calendar scheduling: the earliest fit is the first gap, in day then time order, at least as long "
                 "as the meeting inside working hours.",
    "tags": ["calendar", "multi-turn", "read-only", "scheduling"],
}

DAYS = ["2025-03-10", "2025-03-11", "2025-03-12", "2025-03-13", "2025-03-14"]
TITLES = ["Standup", "Client call", "Budget review", "1:1", "Hiring panel", "Workshop", "Lunch talk", "Planning"]


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class CalendarEarliestSlot:
    def __init__(self, days=4):
        self.days = days
        self.events = []
        self.episode = None

    def reset(self, rng, options):
        length = rng.choice([45, 60, 90])
        slot = None
        while slot is None:
            self.events = []
            for day in DAYS[:self.days]:
                clock = 9 * 60
                while clock < 17 * 60:
                    gap = rng.choice([0, 0, 15, 30, 60, 120]) if day != DAYS[0] else rng.choice([0, 15, 30])
                    span = rng.choice([30, 60, 90])
                    start = clock + gap
                    if start + span > 17 * 60:
                        break
                    self.events.append({"title": rng.choice(TITLES), "day": day, "start": hhmm(start),
                                        "end": hhmm(start + span)})
                    clock = start + span
            slot = self._earliest(length)
        reference = [{"name": "list_events", "arguments": {"day": day}} for day in DAYS[:DAYS.index(slot[0]) + 1]]
        reference.append({"name": "add_event", "arguments": {"title": "Design review", "day": slot[0],
                                                              "start": hhmm(slot[1]), "duration_minutes": length}})
        task = (f"Book a {length}-minute meeting titled 'Design review' in the earliest free time between "
                f"{DAYS[0]} and {DAYS[self.days - 1]}: the earliest day that has room, at the earliest start time "
                "that fits between 09:00 and 17:00 without overlapping an event. Do not move or cancel anything.")
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _earliest(self, length):
        for day in DAYS[:self.days]:
            free = 9 * 60
            for event in sorted((e for e in self.events if e["day"] == day), key=lambda e: e["start"]):
                start = int(event["start"][:2]) * 60 + int(event["start"][3:])
                if start - free >= length:
                    return day, free
                free = max(free, int(event["end"][:2]) * 60 + int(event["end"][3:]))
            if 17 * 60 - free >= length:
                return day, free
        return None

    def _toolbox(self):
        return Calendar(self.events)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Go through the days in order and stop at the first one with a "
                "gap long enough; gaps before the first event and after the last one count too.")

    def reference_action(self):
        return self.episode.reference_action()
