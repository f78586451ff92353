# expect: accepted
"""From the signal box: shunt wagons into a requested order by moving one wagon at a time to the front of the line."""

ENV_SPEC = {
    "name": "SignalBoxYard",
    "domain": "games",
    "description": "Reorder a line of lettered wagons into the requested order; 'front X' moves wagon X to the front, 'look' shows the line.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"wagons": {"min": 4, "max": 7, "default": 6, "description": "wagons in the line"}},
    "grounding": "Railway shunting: a yard engine pulls one wagon out and puts it at the head of the train.",
    "tags": ["puzzle", "ordering", "multi-turn"],
}



class SignalBoxYard:
    def __init__(self, wagons=6):
        self.wagons = wagons
        self.line = []
        self.goal = []
        self.plan = []

    def reset(self, rng, options):
        letters = list("abcdefg"[: self.wagons])
        self.goal = letters[:]
        rng.shuffle(self.goal)
        self.line = letters[:]
        while self.line == self.goal:
            rng.shuffle(self.line)
        self.plan = list(reversed(self.goal))
        return self._show("Shunt the wagons."), {}

    def _show(self, lead):
        return (f"{lead} Line (front first): {' '.join(self.line)}. Wanted: {' '.join(self.goal)}. "
                "Commands: front X (moves wagon X to the front), look (shows the line again).")

    def step(self, action):
        words = action.strip().lower().split()
        if words == ["look"]:
            return self._show("You look down the line."), 0.0, False, False, {}
        if len(words) != 2 or words[0] != "front" or words[1] not in self.line:
            return self._show("Unknown move."), 0.0, False, False, {"format_error": "expected 'front X'"}
        self.line.remove(words[1])
        self.line.insert(0, words[1])
        if self.plan and self.plan[0] == words[1]:
            self.plan.pop(0)
        else:
            self.plan = list(reversed(self.goal))
        if self.line == self.goal:
            return "The train is made up as wanted.", 1.0, True, False, {"success": True}
        return self._show("Moved."), 0.0, False, False, {}

    def privileged_hint(self):
        return "Work toward the front: the wagons that belong at the front can switch last."

    def reference_action(self):
        return f"front {self.plan[0]}"
