# shape: a scheduling task with many valid schedules (any order of the talks that meets every constraint)
"""Put six talks into six consecutive slots so that every stated constraint holds; many schedules are valid, and the
verifier checks the constraints, never one expected order."""

from itertools import permutations

ENV_SPEC = {
    "name": "TalkSchedule",
    "domain": "math",
    "description": "Order talks into consecutive slots under before/after and not-in-slot constraints; any "
                   "schedule meeting every constraint is accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"constraints": {"min": 4, "max": 9, "default": 6, "description": "constraints stated"}},
    "grounding": "Constraint satisfaction over permutations: precedence constraints and forbidden positions, as "
                 "in conference and exam timetabling.",
    "tags": ["scheduling", "constraints", "any-valid-output", "permutations"],
}

SPEAKERS = ["Ada", "Bruno", "Chen", "Dina", "Emil", "Fatou", "Goran", "Hana", "Ivo", "Joy"]


def meets(order, rules):
    place = {name: i for i, name in enumerate(order)}
    for kind, a, b in rules:
        if kind == "before" and not place[a] < place[b]:
            return False
        if kind == "not_slot" and place[a] == b:
            return False
    return True


class TalkSchedule:
    def __init__(self, constraints=6):
        self.count = constraints
        self.talks = []
        self.rules = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.talks = sorted(rng.sample(SPEAKERS, 6))
        valid = []
        while not 2 <= len(valid) <= 40 or meets(self.talks, self.rules) or meets(self.talks[::-1], self.rules):
            hidden = rng.sample(self.talks, 6)
            self.rules = []
            while len(self.rules) < self.count:
                i, j = sorted(rng.sample(range(6), 2))
                rule = ("before", hidden[i], hidden[j]) if rng.random() < 0.6 else \
                    ("not_slot", hidden[i], rng.choice([s for s in range(6) if s != i]))
                if rule not in self.rules:
                    self.rules.append(rule)
            valid = [p for p in permutations(self.talks) if meets(p, self.rules)]
        return self._task(), {}

    def _task(self):
        lines = [f"- {a} speaks before {b}" if kind == "before" else f"- {a} does not speak in slot {b + 1}"
                 for kind, a, b in self.rules]
        return (f"Six talks by {', '.join(self.talks)} fill slots 1 to 6, one talk per slot. Constraints:\n"
                + "\n".join(lines) + "\nReply with the six speakers in slot order separated by commas. Any order "
                "that meets every constraint is accepted; you have 2 tries.")

    def step(self, action):
        self.turn = self.turn + 1
        last = self.turn >= 2
        names = [word.strip().strip(".").capitalize() for word in action[:300].split(",")]
        if sorted(names) != self.talks:
            info = {"success": False, "format_error": "expected each of the six speakers once, comma-separated"}
            return "Name each of the six speakers once, separated by commas.", 0.0, last, False, info
        broken = [r for r in self.rules if not meets(names, [r])]
        if not broken:
            return "Every constraint holds.", 1.0, True, False, {"success": True}
        return f"{len(broken)} constraint(s) broken.", 0.0, last, False, {"success": False}

    def privileged_hint(self):
        return "Place the speakers with the most 'before' constraints first, then fill the slots the others allow."

    def reference_action(self):
        found = next(p for p in permutations(self.talks) if meets(p, self.rules))
        return ", ".join(found)
