# shape: many read-only lookups before one write (read every report, then a single mv files the match)
"""File system: find the one found-property report that matches a lost-item claim and file it as claimed."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "LostPropertyMatch",
    "domain": "tool_use",
    "description": "A transit lost-property office keeps one text report per found item. Read the reports, find "
                   "the single one that matches a passenger's claim on item, colour, station and date window, "
                   "and file it under the claim number; scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "reports": {"min": 8, "max": 16, "default": 12,
                    "description": "found-item reports to read; more reports bring more near-matches that differ "
                                   "in one detail (colour, station or a date just outside the window)"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Lost-property handling: matching a claim on several attributes at once, a date window, and "
                 "filing the matched report under the claim reference.",
    "tags": ["filesystem", "reading", "multi-turn", "single-write"],
    "max_obs_chars": 16000,
}

ITEMS = ["umbrella", "backpack", "scarf", "glove", "phone", "wallet", "laptop sleeve", "water bottle", "hat",
         "headphones"]
COLOURS = ["black", "red", "navy", "green", "grey", "yellow", "brown", "white"]
STATIONS = ["Central", "Harbour", "Northgate", "Elm Park", "Riverside", "Old Mill", "Airport", "Kingsway"]
NAMES = ["Achebe", "Bjork", "Carvalho", "Dubois", "Eriksen", "Fonseca", "Gupta", "Horvat", "Ito", "Jansen"]


class LostPropertyMatch:
    def __init__(self, reports=12):
        self.reports = reports
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        item, colour, station = rng.choice(ITEMS), rng.choice(COLOURS), rng.choice(STATIONS)
        lost_day = rng.randint(5, 20)
        window = (lost_day, lost_day + 3)
        claim = f"CL-{rng.randint(10000, 99999)}"
        claimant = rng.choice(NAMES)
        records = [{"item": item, "colour": colour, "station": station, "day": rng.randint(*window)}]
        tweaks = ["colour", "station", "day", "item"]
        for k in range(self.reports - 1):
            rec = dict(records[0])
            what = tweaks[k % 4] if k < 8 else rng.choice(tweaks)
            if what == "colour":
                rec["colour"] = rng.choice([c for c in COLOURS if c != colour])
            elif what == "station":
                rec["station"] = rng.choice([s for s in STATIONS if s != station])
            elif what == "day":
                rec["day"] = rng.choice([window[0] - rng.randint(1, 3), window[1] + rng.randint(1, 3)])
            else:
                rec["item"] = rng.choice([i for i in ITEMS if i != item])
            if rng.random() < 0.3:
                rec["day"] = rng.randint(1, 28)
            records.append(rec)
        rng.shuffle(records)
        numbers = rng.sample(range(100, 999), self.reports)
        found = {}
        for num, rec in zip(numbers, records):
            found[f"found_{num}.txt"] = (
                f"item: {rec['item']}\ncolour: {rec['colour']}\nstation: {rec['station']}\n"
                f"found on: 2025-03-{rec['day']:02d}\nshelf: {rng.choice('ABCDEF')}{rng.randint(1, 9)}\n")
        matches = [n for n, r in zip(numbers, records)
                   if (r["item"], r["colour"], r["station"]) == (item, colour, station)
                   and window[0] <= r["day"] <= window[1]]
        keep = rng.choice(matches)
        for n in matches:
            if n != keep:
                found[f"found_{n}.txt"] = found[f"found_{n}.txt"].replace(f"station: {station}",
                                                                          "station: Depot (staff only)")
        target = f"found_{keep}.txt"
        self.tree = {"office": {"found": found, "claimed": {"CL-00417_Moss.txt": "item: keys\nreturned"},
                                "procedures.txt": "Match on every detail before releasing an item."}}
        reference = [{"name": "ls", "arguments": {"path": "/office/found"}}]
        for name in sorted(found):
            reference.append({"name": "cat", "arguments": {"file_name": f"/office/found/{name}"}})
        reference.append({"name": "mv", "arguments": {"source": f"/office/found/{target}",
                                                      "destination": f"/office/claimed/{claim}_{claimant}.txt"}})
        task = (
            f"Passenger {claimant} filed claim {claim}: they lost a {colour} {item} at {station} station between "
            f"2025-03-{window[0]:02d} and 2025-03-{window[1]:02d} (both days included). Exactly one report in "
            f"/office/found matches all four details (item, colour, station, a found-on date inside the window). "
            f"Move that report into /office/claimed and name it {claim}_{claimant}.txt. Move nothing else and change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/office")

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Every other report differs from the claim in exactly one detail "
                f"or more, often only the date by a day or two: check all four before moving anything.")

    def reference_action(self):
        return self.episode.reference_action()
