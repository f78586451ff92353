# shape: calendar booking with conflicts: recurring series, earliest later slot on clash days, move a focus block ...
"""Calendar: book a weekly study-group series across several days, resolving clashes day by day."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.calendar_tool import Calendar

ENV_SPEC = {
    "name": "WeeklySeriesBooking",
    "domain": "tool_use",
    "description": "Book one session of a recurring series on each listed day at a preferred time; where that "
                   "time clashes, book the earliest later slot that still ends by the cut-off, and where nothing "
                   "fits, move the day's movable 'Focus block' out of the way first. Scored by the final calendar.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "days": {"min": 2, "max": 6, "default": 4,
                 "description": "days in the series; from 3 one day has a clash, from 4 one day is blocked until "
                                "the cut-off except for a movable focus block"},
    },
    "tools": ["list_events", "add_event", "move_event", "cancel_event", "find_free_slot"],
    "grounding": "Recurring meetings in calendar software: each occurrence may need its own time when it clashes "
                 "with existing events; movable focus time yields to meetings.",
    "tags": ["calendar", "multi-turn", "state-equality", "conflicts"],
    "max_obs_chars": 16000,
}

TITLES = ["Standup", "1:1 with manager", "Design review", "Client call", "Lunch", "Budget sync", "Interview",
          "Vendor demo", "Training"]
SERIES = ["Study group", "Spanish class", "Mentoring", "Book club", "Code kata"]


def _t(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class WeeklySeriesBooking:
    def __init__(self, days=4):
        self.days = days
        self.events = []
        self.episode = None

    def reset(self, rng, options):
        n = self.days
        dates = [f"2025-06-{d:02d}" for d in sorted(rng.sample(range(2, 28), n))]
        length = rng.choice([45, 60, 90])
        pref = rng.choice([11, 13, 14]) * 60
        cutoff = 17 * 60
        series = rng.choice(SERIES)
        events = []
        clash_day = 1 if n >= 3 else None
        blocked_day = 2 if n >= 4 else None
        for k, day in enumerate(dates):
            # background events before the preferred time
            morning = 15 if k == blocked_day else rng.choice([15, 30, 45])
            events.append({"title": rng.choice(TITLES), "day": day, "start": _t(9 * 60),
                           "end": _t(9 * 60 + morning)})
            if k == clash_day:
                s = pref - rng.choice([0, 15, 30])
                e = pref + rng.choice([30, 60, 75])
                events.append({"title": rng.choice(TITLES), "day": day, "start": _t(s), "end": _t(e)})
            elif k == blocked_day:
                # busy from pref to cutoff except a focus block of the series length or more
                fstart = pref + rng.choice([0, 60])
                flen = length + rng.choice([0, 15])
                if fstart > pref:
                    events.append({"title": "Client call", "day": day, "start": _t(pref), "end": _t(fstart)})
                events.append({"title": "Focus block", "day": day, "start": _t(fstart), "end": _t(fstart + flen)})
                if fstart + flen < cutoff:
                    events.append({"title": "Workshop", "day": day, "start": _t(fstart + flen), "end": _t(cutoff)})
            else:
                if rng.random() < 0.5:
                    events.append({"title": rng.choice(TITLES), "day": day, "start": _t(pref + length + 30),
                                   "end": _t(pref + length + 60)})
        # free early morning slot on the blocked day so the focus block can move
        self.events = events
        self.series = series
        ref = [{"name": "list_events", "arguments": {}}]
        scratch = Calendar(events=events)
        for k, day in enumerate(dates):
            title = f"{series} #{k + 1}"
            slot = scratch.call("find_free_slot", {"day": day, "duration_minutes": length, "earliest": _t(pref),
                                                   "latest": _t(cutoff)})
            if "error" in slot:
                focus = [e for e in scratch.call("list_events", {"day": day})["events"] if e["title"] == "Focus block"][0]
                early = scratch.call("find_free_slot", {"day": day, "duration_minutes": _m(focus["end"]) - _m(focus["start"]),
                                                        "earliest": "09:00", "latest": _t(pref)})
                call = {"name": "move_event", "arguments": {"event_id": focus["id"], "day": day,
                                                             "start": early["start"]}}
                scratch.call(call["name"], call["arguments"])
                ref.append(call)
                slot = scratch.call("find_free_slot", {"day": day, "duration_minutes": length, "earliest": _t(pref),
                                                       "latest": _t(cutoff)})
            call = {"name": "add_event", "arguments": {"title": title, "day": day, "start": slot["start"],
                                                        "duration_minutes": length}}
            scratch.call(call["name"], call["arguments"])
            ref.append(call)
        task = (f"Book the '{series}' series: one {length}-minute session on each of these days: {', '.join(dates)}. "
                f"Title them '{series} #1', '{series} #2', ... in date order. Each session starts at {_t(pref)} if "
                f"that is free; otherwise at the earliest later time (on the quarter hour or right after another "
                f"event) where it fits without overlapping anything and ends by {_t(cutoff)}. If nothing fits "
                f"between {_t(pref)} and {_t(cutoff)} on a day, move that day's 'Focus block' (same day, same "
                f"length) to the earliest time it fits before {_t(pref)}, then book the session as above. Change "
                f"nothing else.")
        self.episode = ToolEpisode(self._toolbox, ref, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return Calendar(events=self.events)

    def step(self, action):
        if self.episode.done:
            return ("The episode is over; reset to start a new one.", 0.0, True, False,
                    {"success": False, "format_error": "episode already finished"})
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Ask find_free_slot with the preferred time as 'earliest' and the "
                f"cut-off as 'latest'; only when it finds nothing does the focus block need to move.")

    def reference_action(self):
        return self.episode.reference_action()


def _m(text):
    return int(text[:2]) * 60 + int(text[3:])
