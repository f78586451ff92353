# expect: accepted
"""What fraction of a bag of marbles is red? One answer, as a fraction."""

from fractions import Fraction

ENV_SPEC = {
    "name": "MarbleFraction",
    "domain": "math",
    "description": "A bag holds red, blue and green marbles; give the fraction that is red as \\boxed{a/b}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"most": {"min": 9, "max": 40, "default": 20, "description": "most marbles of one colour"}},
    "grounding": "A probability of drawing a colour is its count over the total count (classical probability).",
    "tags": ["fractions", "probability", "single-turn"],
}


class MarbleFraction:
    def __init__(self, most=20):
        self.most = most
        self.counts = [1, 1, 1]

    def reset(self, rng, options):
        self.counts = [rng.randint(2, self.most), rng.randint(2, self.most), rng.randint(2, self.most)]
        red, blue, green = self.counts
        obs = (f"A bag holds {red} red, {blue} blue and {green} green marbles. What fraction of the marbles are "
               "red? Answer as \\boxed{a/b}.")
        return obs, {}

    def answer(self):
        return Fraction(self.counts[0], sum(self.counts))

    def _parse(self, action):
        text = action.strip()
        if "\\boxed{" in text:
            text = text[text.rfind("\\boxed{") + 7:]
            text = text[: text.find("}")] if "}" in text else text
        text = text.replace(" ", "")
        if len(text) > 40:
            return None
        try:
            if "/" in text:
                top, bottom = text.split("/", 1)
                return Fraction(int(top), int(bottom)) if int(bottom) != 0 else None
            return Fraction(text)
        except ValueError:
            return None

    def step(self, action):
        value = self._parse(action)
        if value is None:
            return "No fraction found; the episode is over.", 0.0, True, False, {"format_error": "expected \\boxed{a/b}"}
        if value == self.answer():
            return "Correct.", 1.0, True, False, {"success": True}
        return f"Not right: the red share is {self.answer()}.", 0.0, True, False, {}

    def privileged_hint(self):
        return f"There are {sum(self.counts)} marbles in all."

    def reference_action(self):
        value = self.answer()
        return f"\\boxed{{{value.numerator}/{value.denominator}}}"
