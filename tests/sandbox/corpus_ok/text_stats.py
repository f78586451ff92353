"""Text statistics with namedtuple _replace, sorted keys, lambdas, generators, statistics and textwrap."""

import statistics
from collections import OrderedDict, namedtuple
from textwrap import dedent

ENV_SPEC = {
    "name": "TextStats",
    "domain": "math",
    "description": "Report the median word length of a sentence.",
    "reward_range": [0, 1],
    "max_turns": 3,
}

Report = namedtuple("Report", ["median", "longest"])
SENTENCES = ["the quick brown fox jumps over the lazy dog", "pack my box with five dozen liquor jugs"]


def words_of(text):
    for word in text.split():
        yield word.strip(".,")


class TextStats:
    def __init__(self):
        self.text = ""
        self.report = Report(0, "")
        self.attempts = 0

    def reset(self, rng, options):
        self.text = rng.choice(SENTENCES)
        lengths = [len(w) for w in words_of(self.text)]
        self.report = Report(statistics.median(lengths), "")
        self.report = self.report._replace(longest=max(words_of(self.text), key=lambda w: (len(w), w)))
        self.attempts = 0
        prompt = dedent(f"""
            Sentence: {self.text}
            What is the median word length?""").strip()
        return prompt, {"words": len(lengths)}

    def step(self, action):
        self.attempts += 1
        try:
            value = float(action)
        except ValueError:
            return "Give a number.", 0, False, False, {"format_error": "not a number"}
        ok = abs(value - self.report.median) < 1e-9
        counts = OrderedDict(sorted(((w, len(w)) for w in words_of(self.text)), key=lambda kv: kv[0]))
        return ("Yes." if ok else "No."), int(ok), ok, False, {"success": ok, "n": len(counts)}

    def privileged_hint(self):
        return f"The longest word is {self.report.longest!r}."

    def reference_action(self):
        return str(self.report.median)
