"""Keep a running count of heads while coin flips are revealed one round at a time."""

from spade_example_plugin.verify import read_count, safe_echo

ENV_SPEC = {
    "name": "ExampleCoinTally",
    "domain": "tally",
    "description": (
        "Coin flips are shown one round at a time; after each round reply with the number of heads so far. "
        "Two wrong answers end the episode."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "players": 1,
    "difficulty": {
        "rounds": {"min": 2, "max": 5, "default": 3, "description": "rounds of flips (one answer each)"},
        "flips": {"min": 3, "max": 9, "default": 5, "description": "flips per round"},
    },
    "grounding": "Independent fair coin flips; a running total adds each round's heads to the previous total.",
    "tags": ["example", "third-party", "counting", "multi-turn"],
}


class CoinTally:
    def __init__(self, rounds=3, flips=5):
        self.rounds = rounds
        self.flips = flips
        self.groups = []
        self.totals = []
        self.round = 0
        self.mistakes = 0

    def reset(self, rng, options):
        self.groups = [[rng.choice("HT") for _ in range(self.flips)] for _ in range(self.rounds)]
        self.totals = []
        total = 0
        for group in self.groups:
            total = total + group.count("H")
            self.totals.append(total)
        self.round = 0
        self.mistakes = 0
        intro = (f"I flip a coin {self.flips} times per round for {self.rounds} rounds. After each round, reply "
                 "with the number of heads (H) so far, over all rounds, as \\boxed{N}.\n")
        return intro + self._show(), {"round": 1}

    def _show(self):
        return f"Round {self.round + 1}: {' '.join(self.groups[self.round])}"

    def step(self, action):
        given = read_count(action)
        if given is None:
            obs = f"'{safe_echo(action)}' is not a count. Reply with one whole number as \\boxed{{N}}.\n" + self._show()
            return obs, 0.0, False, False, {"format_error": "expected one whole number, e.g. \\boxed{3}",
                                            "round": self.round + 1}
        if given != self.totals[self.round]:
            self.mistakes = self.mistakes + 1
            if self.mistakes >= 2:
                return "Wrong again; the episode is over.", 0.0, True, False, {"success": False}
            obs = f"{given} is not the number of heads so far. Try once more.\n" + self._show()
            return obs, 0.0, False, False, {"round": self.round + 1}
        self.round = self.round + 1
        reward = 1.0 / self.rounds
        if self.round == self.rounds:
            return "Correct: that is the final tally.", reward, True, False, {"success": True}
        return "Correct.\n" + self._show(), reward, False, False, {"round": self.round + 1}

    def privileged_hint(self):
        group = self.groups[self.round] if self.round < self.rounds else []
        heads = group.count("H")
        tails = len(group) - heads
        balance = "more heads than tails" if heads > tails else "more tails than heads" if tails > heads else "as many heads as tails"
        return f"This round has {balance}; add only its heads to the total you gave for the previous round."

    def reference_action(self):
        return f"\\boxed{{{self.totals[min(self.round, self.rounds - 1)]}}}"
