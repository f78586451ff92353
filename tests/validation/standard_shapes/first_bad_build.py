# shape: a hint that depends on the agent's own feedback so far (bisecting a build history)
"""Find the first broken build in a numbered history by testing builds (each test says broken or fine) within a
test budget, then name it. The hint summarises what the agent's own tests have established so far (how many builds
are still suspects and how many tests remain), so it changes with the agent's choices."""

import re

ENV_SPEC = {
    "name": "FirstBadBuild",
    "domain": "games",
    "description": "Bisect a history of builds: test builds (broken or fine) within a budget and name the first "
                   "broken one.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {"builds": {"min": 16, "max": 200, "default": 100, "description": "builds in the history"}},
    "grounding": "git bisect: once a build is broken every later one is, so halving the suspects finds the first "
                 "broken build in about log2(n) tests.",
    "tags": ["bisection", "binary-search", "feedback", "adaptive-hint"],
}

TEST = re.compile(r"test\s+#?(\d{1,4})")
ANSWER = re.compile(r"answer\s+#?(\d{1,4})")


class FirstBadBuild:
    def __init__(self, builds=100):
        self.builds = builds
        self.first_bad = 2
        self.fine_upto = 1
        self.bad_from = builds
        self.tests = 0
        self.done = False

    def reset(self, rng, options):
        self.first_bad = rng.randint(2, self.builds)
        self.fine_upto, self.bad_from = 1, self.builds
        self.tests = self.budget()
        self.done = False
        return (f"Builds 1 to {self.builds} are numbered in order. Build 1 works and build {self.builds} is "
                f"broken; once a build is broken every later build is broken too. Reply 'test N' to learn whether "
                f"build N is broken, or 'answer N' to name the first broken build (one answer only). Tests "
                f"allowed: {self.tests}."), {}

    def budget(self):
        return (self.builds - 1).bit_length() + 1

    def step(self, action):
        if self.done:
            return "The search is over.", 0.0, True, False, {"success": False}
        text = action.strip().lower()
        tested, named = TEST.fullmatch(text), ANSWER.fullmatch(text)
        if named is not None:
            self.done = True
            ok = int(named.group(1)) == self.first_bad
            verdict = "Right: that is the first broken build." if ok else "That is not the first broken build."
            return verdict, (1.0 if ok else 0.0), True, False, {"success": ok}
        if tested is None or not 1 <= int(tested.group(1)) <= self.builds:
            info = {"success": False, "format_error": "expected 'test N' or 'answer N'", "action_is_valid": False}
            return f"Reply 'test N' or 'answer N' with N from 1 to {self.builds}.", 0.0, False, False, info
        if self.tests == 0:
            return "No tests left: give your answer.", 0.0, False, False, {"success": False, "action_is_valid": False}
        build = int(tested.group(1))
        self.tests = self.tests - 1
        broken = build >= self.first_bad
        if broken:
            self.bad_from = min(self.bad_from, build)
        else:
            self.fine_upto = max(self.fine_upto, build)
        state = "broken" if broken else "fine"
        return f"Build {build} is {state}. Tests left: {self.tests}.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        suspects = self.bad_from - self.fine_upto
        if suspects == 1:
            return "Your tests so far leave a single suspect: the build just after the last fine one you found."
        return (f"Your tests so far leave {suspects} suspect builds and you have {self.tests} tests left; test "
                "the one halfway between your latest fine build and your earliest broken build.")

    def reference_action(self):
        if self.bad_from - self.fine_upto == 1:
            return f"answer {self.bad_from}"
        return f"test {(self.fine_upto + self.bad_from) // 2}"
