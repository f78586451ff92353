# good: the task's events and years come from the document
"""Date the events of the French Revolution."""

ENV_SPEC = {
    "name": "RevolutionDates",
    "domain": "math",
    "description": "Give the year of a historical event; answer as \\boxed{YYYY}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"tries": {"min": 1, "max": 2, "default": 2}},
    "grounding": "The document's chronology.",
}

EVENTS = [
    ("the Storming of the Bastille", 1789, "July"),
    ("the Tennis Court Oath of the Third Estate", 1789, "June"),
    ("the Flight to Varennes of the royal family", 1791, "June"),
    ("the proclamation of the First Republic", 1792, "September"),
    ("the execution of Louis XVI", 1793, "January"),
    ("the Thermidorian Reaction ending the Reign of Terror", 1794, "July"),
    ("the coup of 18 Brumaire by Napoleon Bonaparte", 1799, "November"),
    ("the Women's March on Versailles", 1789, "October"),
    ("the declaration of war on Austria", 1792, "April"),
    ("the start of the Directory", 1795, "November"),
]


class RevolutionDates:
    def __init__(self, tries=2):
        self.tries = tries
        self.event = EVENTS[0]
        self.left = tries

    def reset(self, rng, options):
        self.event = EVENTS[rng.randrange(len(EVENTS))]
        self.left = self.tries
        return f"In which year did {self.event[0]} take place? Answer as \\boxed{{YYYY}}.", {}

    def step(self, action):
        text = action.strip()
        if not (text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit()):
            self.left = self.left - 1
            done = self.left <= 0
            return "Answer as \\boxed{YYYY}.", 0.0, done, False, {"success": False, "format_error": "no year"}
        if int(text[7:-1]) == self.event[1]:
            return "Correct.", 1.0, True, False, {"success": True}
        self.left = self.left - 1
        done = self.left <= 0
        return ("Wrong." if done else "Wrong; one more try."), 0.0, done, False, {"success": False}

    def privileged_hint(self):
        return f"It happened in {self.event[2]}, during the revolution's decade."

    def reference_action(self):
        return f"\\boxed{{{self.event[1]}}}"
