"""Calendar: book a list of meetings, each at the earliest free time that fits its constraints."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar

ENV_SPEC = {
    "name": "ScheduleMeetings",
    "domain": "tool_use",
    "description": "Book meetings into a busy calendar, in order, each at the earliest conflict-free time on its "
                   "day within working hours and after its 'not before' time; scored by the final calendar.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "meetings": {"min": 1, "max": 8, "default": 3,
                     "description": "meetings to book; more meetings spread over more, busier days"},
    },
    "tools": ["list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Scheduling with a shared calendar: working hours, no double booking, earliest-fit placement "
                 "and 'not before' constraints, as in meeting-room and assistant booking tools.",
    "tags": ["calendar", "scheduling", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

DAYS = ["2025-06-02", "2025-06-03", "2025-06-04", "2025-06-05", "2025-06-06"]
BUSY = ["Standup", "1:1 with Sam", "Design review", "Customer call", "Lunch", "Focus time", "Hiring panel",
        "Budget sync", "Team retro", "Vendor demo"]
MEETINGS = ["Kickoff: Atlas", "Interview: backend", "Roadmap planning", "Security briefing", "Onboarding: Mia",
            "Quarterly review", "Pricing workshop", "Incident postmortem", "Partner intro", "Sprint planning"]


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class ScheduleMeetings:
    def __init__(self, meetings=3):
        self.meetings = meetings
        self.events = []
        self.episode = None

    def reset(self, rng, options):
        count = self.meetings
        days = sorted(rng.sample(DAYS, 1 + (count - 1) // 3))
        events = []
        for day in days:
            cursor = 9 * 60 + rng.choice([0, 15, 30])
            for title in rng.sample(BUSY, rng.randint(3, 5)):
                length = rng.choice([30, 45, 60, 90])
                if cursor + length > 16 * 60:
                    break
                events.append({"title": title, "day": day, "start": hhmm(cursor), "end": hhmm(cursor + length)})
                cursor = cursor + length + rng.choice([0, 0, 15, 30, 45, 60])
        self.events = events
        planner = Calendar(events)
        requests = []
        reference = [{"name": "list_events", "arguments": {"day": day}} for day in days]
        for title in rng.sample(MEETINGS, count):
            for attempt in range(6):
                day = rng.choice(days)
                duration = rng.choice([30, 45, 60, 90]) if attempt < 3 else 30
                not_before = hhmm(rng.choice([9, 10, 11, 13, 14]) * 60) if rng.random() < 0.5 else None
                query = {"day": day, "duration_minutes": duration}
                if not_before is not None:
                    query["earliest"] = not_before
                slot = planner.call("find_free_slot", query)
                if "error" not in slot:
                    break
            if "error" in slot:
                continue
            planner.call("add_event", {"title": title, "day": day, "start": slot["start"], "duration_minutes": duration})
            requests.append({"title": title, "day": day, "duration": duration, "not_before": not_before})
            reference.append({"name": "find_free_slot", "arguments": query})
            reference.append({"name": "add_event", "arguments": {
                "title": title, "day": day, "start": slot["start"], "duration_minutes": duration}})
        lines = []
        for r in requests:
            constraint = f", not before {r['not_before']}" if r["not_before"] else ""
            lines.append(f"  - '{r['title']}' on {r['day']}, {r['duration']} minutes{constraint}")
        task = (
            "Book these meetings in the calendar, in this order:\n" + "\n".join(lines) + "\n\n"
            "Rules: working hours are 09:00-17:00. Give each meeting the earliest start time on its day at which "
            "it fits entirely within working hours, at or after its 'not before' time if it has one, without "
            "overlapping any event already in the calendar (including the meetings you booked before it). Use the "
            "titles exactly as written. Do not move or cancel existing events."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Calendar(self.events)

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Book strictly in the listed order: each booking changes where "
                f"the next one fits. The free-slot search takes the 'not before' time as its earliest start.")

    def reference_action(self):
        return self.episode.reference_action()
