# shape: small answer space (four labels: acute / right / obtuse / none), guessing one item is easy (25%) but the
# env stays honest: one try per item, several items per episode, success only when every item is right.
"""Classify several surveyed triangles by their side lengths: acute, right, obtuse, or not a triangle."""

from spade_domains.math.verify import extract_answer, normalize_answer, safe_echo

ENV_SPEC = {
    "name": "SurveyTriangleKind",
    "domain": "math",
    "description": (
        "The agent is given the three side lengths of a surveyed triangle, one triangle per turn, and answers "
        "acute, right, obtuse or none (the lengths cannot form a triangle). Each item gets one try; a wrong "
        "answer is told the correct kind and the comparison that decides it. Success needs every item right."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "players": 1,
    "difficulty": {
        "items": {"min": 3, "max": 6, "default": 5, "description": "triangles to classify in one episode"},
        "size": {"min": 20, "max": 400, "default": 90, "description": "largest side length"},
    },
    "grounding": (
        "After 1789 the revolutionary government ordered the survey of the meridian (Delambre and Mechain) to "
        "define the metre; triangulation networks are chains of triangles whose shape follows from the law of "
        "cosines: c^2 compared with a^2 + b^2 decides whether the angle opposite c is acute, right or obtuse."
    ),
    "tags": ["geometry", "classification", "pythagoras", "small-answer-space"],
}

KINDS = ["acute", "right", "obtuse", "none"]
ALIASES = {
    "acute": "acute", "a": "acute", "acuteangled": "acute", "acutetriangle": "acute",
    "right": "right", "r": "right", "rightangled": "right", "righttriangle": "right",
    "obtuse": "obtuse", "o": "obtuse", "obtuseangled": "obtuse", "obtusetriangle": "obtuse",
    "none": "none", "n": "none", "notatriangle": "none", "notriangle": "none", "impossible": "none",
}
STATIONS = ["Dunkerque", "Amiens", "Paris", "Orleans", "Bourges", "Rodez", "Carcassonne", "Barcelona"]
TRIPLES = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (9, 40, 41), (12, 35, 37), (11, 60, 61)]


def kind_of(sides):
    a, b, c = sorted(sides)
    if a + b <= c:
        return "none"
    lhs = a * a + b * b
    rhs = c * c
    if lhs == rhs:
        return "right"
    return "acute" if lhs > rhs else "obtuse"


class SurveyTriangleKind:
    def __init__(self, items=5, size=90):
        self.n_items = items
        self.size = size
        self.triangles = []
        self.kinds = []
        self.names = []
        self.index = 0
        self.correct = 0
        self.done = False

    def _draw(self, rng, kind):
        for _ in range(500):
            if kind == "right":
                base = rng.choice([t for t in TRIPLES if t[2] <= self.size] or TRIPLES[:1])
                k = rng.randint(1, max(1, self.size // base[2]))
                sides = [k * base[0], k * base[1], k * base[2]]
            elif kind == "none":
                a = rng.randint(2, self.size // 2)
                b = rng.randint(2, self.size // 2)
                c = min(self.size, a + b + rng.randint(0, 3))
                sides = [a, b, c]
            else:
                # near the right-angle boundary, so estimating by eye is not enough
                base = rng.choice([t for t in TRIPLES if t[2] <= self.size] or TRIPLES[:1])
                k = rng.randint(1, max(1, self.size // base[2]))
                sides = [k * base[0], k * base[1], k * base[2] + rng.choice([-2, -1, 1, 2])]
            rng.shuffle(sides)
            if min(sides) > 0 and kind_of(sides) == kind:
                return sides
        return [3, 4, 5] if kind == "right" else ([2, 3, 4] if kind == "obtuse" else
                                                 ([4, 5, 6] if kind == "acute" else [1, 2, 3]))

    def reset(self, rng, options):
        plan = list(KINDS)
        while len(plan) < self.n_items:
            plan.append(rng.choice(KINDS))
        rng.shuffle(plan)
        plan = plan[: self.n_items]
        self.kinds = plan
        self.triangles = [self._draw(rng, k) for k in plan]
        stations = list(STATIONS)
        self.names = []
        for _ in plan:
            rng.shuffle(stations)
            self.names.append(stations[:3])
        self.index = 0
        self.correct = 0
        self.done = False
        obs = (
            f"Classify {self.n_items} survey triangles, one per turn. For each, answer \\boxed{{acute}}, "
            "\\boxed{right}, \\boxed{obtuse} (by its largest angle) or \\boxed{none} (the three lengths cannot form "
            "a triangle: the two shorter ones do not add up to more than the longest). One try per triangle; the "
            f"episode is solved only when every triangle is classified correctly.\n{self._question()}"
        )
        return obs, {"item": 0}

    def _question(self):
        p, q, r = self.names[self.index]
        a, b, c = self.triangles[self.index]
        return (f"Triangle {self.index + 1}/{self.n_items}: {p}-{q} = {a} km, {q}-{r} = {b} km, "
                f"{r}-{p} = {c} km. What kind is it?")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "item": self.index}
        given = extract_answer(action)
        if given is None:
            stripped = action.strip() if isinstance(action, str) else ""
            given = stripped if 0 < len(stripped) <= 20 else None
        key = "".join(ch for ch in normalize_answer(given).lower() if ch.isalpha()) if given is not None else ""
        label = ALIASES.get(key)
        if label is None:
            obs = f"Answer with one of acute, right, obtuse, none, e.g. \\boxed{{acute}}.\n{self._question()}"
            info = {"success": False, "format_error": "expected acute, right, obtuse or none", "item": self.index}
            return obs, 0.0, False, False, info
        want = self.kinds[self.index]
        a, b, c = sorted(self.triangles[self.index])
        if want == "none":
            why = f"{a} + {b} = {a + b} is not more than {c}"
        else:
            rel = "=" if a * a + b * b == c * c else (">" if a * a + b * b > c * c else "<")
            why = f"{a}^2 + {b}^2 = {a * a + b * b} {rel} {c}^2 = {c * c}"
        reward = 0.0
        if label == want:
            self.correct = self.correct + 1
            reward = 1.0 / self.n_items
            note = f"Correct: {why}."
        else:
            note = f"{safe_echo(given)} is wrong: it is {want}, since {why}."
        self.index = self.index + 1
        if self.index == self.n_items:
            self.done = True
            success = self.correct == self.n_items
            end = "All triangles classified correctly." if success else f"{self.correct}/{self.n_items} correct."
            return f"{note} {end}", reward, True, False, {"success": success, "item": self.index}
        return f"{note}\n{self._question()}", reward, False, False, {"success": False, "item": self.index}

    def privileged_hint(self):
        return ("Sort the three lengths. If the two shorter ones do not sum to more than the longest, there is no "
                "triangle. Otherwise compare the sum of the squares of the two shorter sides with the square of "
                "the longest: larger means acute, equal means right, smaller means obtuse.")

    def reference_action(self):
        if self.done:
            return "\\boxed{acute}"
        return "\\boxed{" + self.kinds[self.index] + "}"
