# shape: calendar follow-ups with a last-admission START limit and next-day spill-over; fixed half of pair 2.
"""Calendar: book follow-up appointments for several patients around a clinician's existing day, earliest start at or
after each requested time, never starting after the last admission time; spill over to the next clinic day."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar

ENV_SPEC = {
    "name": "ClinicFollowupBooking",
    "domain": "tool_use",
    "description": "Book follow-up appointments into a clinician's calendar: each patient asks for a day and an "
                   "earliest time; the appointment takes the earliest start at or after it that overlaps nothing "
                   "and starts no later than the last admission time, else the same rule on the next clinic day.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "patients": {"min": 2, "max": 6, "default": 3,
                     "description": "follow-ups to book, in the order given (each one occupies time the next may "
                                    "want); more patients crowd the afternoons, so more spill to the next day"},
    },
    "tools": ["list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Outpatient clinic scheduling: appointment lengths by visit type, a last-admission time after "
                 "which no visit may start, and rebooking on the next clinic day.",
    "tags": ["calendar", "multi-turn", "state-equality", "conflicts"],
    "max_obs_chars": 16000,
}

PATIENTS = ["Mr Okafor", "Ms Lindqvist", "Mrs Haddad", "Mr Novak", "Ms Tanaka", "Mr Ruiz", "Mrs Kowalski",
            "Ms Abebe", "Mr Moreau"]
VISITS = {"wound check": 20, "suture removal": 30, "medication review": 40, "physio follow-up": 60}
BUSY = ["Ward round", "Team huddle", "Teaching", "Admin", "Theatre list", "Case conference"]
LAST_START = 16 * 60


def _t(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class ClinicFollowupBooking:
    def __init__(self, patients=3):
        self.patients = patients
        self.events = []
        self.episode = None

    def reset(self, rng, options):
        n = self.patients
        first = rng.randint(3, 20)
        days = [f"2025-09-{first:02d}", f"2025-09-{first + 1:02d}"]
        events = []
        for k, day in enumerate(days):
            t = 9 * 60 + 60 * k  # the next clinic day always opens with a free first hour
            while t < 17 * 60:
                t = t + rng.choice([0, 10, 20, 30, 40])
                length = rng.choice([30, 40, 50, 60, 90])
                if t + length > 17 * 60 - rng.choice([0, 20, 40]):
                    break
                events.append({"title": rng.choice(BUSY), "day": day, "start": _t(t), "end": _t(t + length)})
                t = t + length
        self.events = events
        requests = []
        for _i, name in enumerate(rng.sample(PATIENTS, n)):
            visit = rng.choice(sorted(VISITS))
            requests.append((name, visit, rng.choice([13, 14, 15]) * 60 + rng.choice([0, 30])))
        scratch = Calendar(events=events, day_end="17:00")
        ref = [{"name": "list_events", "arguments": {"day": days[0]}}]
        for name, visit, earliest in requests:
            minutes = VISITS[visit]
            call = None
            for k, day in enumerate(days):
                slot = scratch.call("find_free_slot", {"day": day, "duration_minutes": minutes,
                                                       "earliest": _t(earliest if k == 0 else 9 * 60),
                                                       "latest": _t(LAST_START + minutes)})
                if "error" not in slot:
                    call = {"name": "add_event", "arguments": {"title": f"{visit.capitalize()}: {name}", "day": day,
                                                                "start": slot["start"], "duration_minutes": minutes}}
                    break
            if call is None:
                continue
            scratch.call(call["name"], call["arguments"])
            ref.append(call)
        lines = "; ".join(f"{name}: {visit} ({VISITS[visit]} min), not before {_t(e)}"
                          for name, visit, e in requests)
        task = (f"Book these follow-ups for {days[0]}, in this order: {lines}. Title each '<Visit type with a "
                f"capital first letter>: <patient>', e.g. 'Wound check: Mr Novak'. Each appointment takes the "
                f"earliest start time, at or after the patient's time and on a 10-minute mark or right after another "
                f"event ends, where it overlaps nothing. No appointment may START after {_t(LAST_START)} (the last "
                f"admission), though it may run past it. If nothing fits on {days[0]}, book it on {days[1]} at the "
                f"earliest start from 09:00 under the same rules; if nothing fits there either, leave that patient "
                f"unbooked. Change nothing else.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Calendar(events=self.events, day_end="17:00")

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Book patients in the given order, because each booking changes "
                f"what is free for the next; find_free_slot with the patient's time as 'earliest' does the search.")

    def reference_action(self):
        return self.episode.reference_action()
