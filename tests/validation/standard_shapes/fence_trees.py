# shape: small answer space (yes/no per question): balanced answers, one strike per episode, so guessing rarely wins.
"""Decide, tree by tree, whether it stands inside a triangular fence (yes/no questions, one strike allowed)."""

from spade_domains.math.verify import extract_answer, safe_echo

ENV_SPEC = {
    "name": "FenceTreesInside",
    "domain": "math",
    "description": (
        "A triangular fence has integer corner coordinates. For each tree in turn answer yes (strictly inside the "
        "fence) or no (outside). Half the trees are inside; one wrong answer is forgiven, a second ends the survey."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "trees": {"min": 6, "max": 14, "default": 10, "description": "trees to classify (an even number is used)"},
        "spread": {"min": 12, "max": 40, "default": 20, "description": "coordinate range of the field"},
    },
    "grounding": (
        "Point-in-triangle tests with orientation signs: P is strictly inside ABC when the cross products "
        "(B-A)x(P-A), (C-B)x(P-B), (A-C)x(P-C) are all non-zero with one common sign."
    ),
    "tags": ["geometry", "coordinates", "yes-no", "multi-step"],
}

YES = {"yes", "y", "inside", "true"}
NO = {"no", "n", "outside", "false"}


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def side_signs(corners, p):
    a, b, c = corners
    return [cross(a, b, p), cross(b, c, p), cross(c, a, p)]


class FenceTreesInside:
    def __init__(self, trees=10, spread=20):
        self.trees = trees - trees % 2
        self.spread = spread
        self.corners = []
        self.points = []
        self.inside = []
        self.current = 0
        self.strikes = 0
        self.finished = False

    def reset(self, rng, options):
        while True:
            corners = [(rng.randint(0, self.spread), rng.randint(0, self.spread)) for _ in range(3)]
            if abs(cross(*corners)) >= self.spread * self.spread // 3:
                break
        inner, outer = [], []
        while len(inner) < self.trees // 2 or len(outer) < self.trees // 2:
            p = (rng.randint(0, self.spread), rng.randint(0, self.spread))
            signs = side_signs(corners, p)
            if 0 in signs or p in inner or p in outer:
                continue
            if all(s > 0 for s in signs) or all(s < 0 for s in signs):
                if len(inner) < self.trees // 2:
                    inner.append(p)
            elif len(outer) < self.trees // 2:
                outer.append(p)
        points = inner + outer
        rng.shuffle(points)
        self.corners = corners
        self.points = points
        self.inside = [p in inner for p in points]
        self.current = 0
        self.strikes = 0
        self.finished = False
        names = ", ".join(f"{n}{c}" for n, c in zip("ABC", corners))
        obs = (
            f"A straight fence joins the corners {names}. No tree stands exactly on the fence. For each tree answer "
            f"\\boxed{{yes}} if it is inside the fenced triangle or \\boxed{{no}} if it is outside. One wrong answer "
            f"is forgiven (you may retry); a second wrong answer ends the survey.\n{self.question()}"
        )
        return obs, {"tree": 0}

    def question(self):
        return f"Tree {self.current + 1}/{self.trees} stands at {self.points[self.current]}. Inside?"

    def step(self, action):
        if self.finished:
            return "The survey is over; reset for a new field.", 0.0, True, False, {"success": False}
        given = extract_answer(action)
        if given is None and len(action.strip()) <= 12:
            given = action.strip()
        word = (given or "").strip().strip(".").lower()
        if word not in YES and word not in NO:
            obs = f"Answer yes or no, as \\boxed{{yes}} or \\boxed{{no}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected yes or no", "tree": self.current}
        truth = self.inside[self.current]
        if (word in YES) == truth:
            self.current = self.current + 1
            reward = 1.0 / self.trees
            if self.current == self.trees:
                self.finished = True
                return "Correct. Survey complete.", reward, True, False, {"success": True, "tree": self.current}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "tree": self.current}
        self.strikes = self.strikes + 1
        mixed = "do not all share one sign" if not truth else "all share one sign"
        note = f"{safe_echo(word)} is wrong: the three orientation tests for this tree {mixed}"
        if self.strikes >= 2:
            self.finished = True
            return f"{note}. Second mistake; the survey ends.", 0.0, True, False, {"success": False, "tree": self.current}
        obs = f"{note}. That was your one forgiven mistake.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "tree": self.current}

    def privileged_hint(self):
        return (
            "For a tree P compute the cross products (B-A)x(P-A), (C-B)x(P-B) and (A-C)x(P-C); it is inside exactly "
            "when the three results have the same sign. A rough sketch misleads near the long edge."
        )

    def reference_action(self):
        if self.finished or not self.inside:
            return "\\boxed{no}"
        return "\\boxed{yes}" if self.inside[self.current] else "\\boxed{no}"
