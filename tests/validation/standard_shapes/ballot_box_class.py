# shape: implement a class (stateful API): several methods exercised by hidden scripted call sequences, the
# specification (tie rule, re-vote rule) drawn per seed; failing scripts shown as feedback between tries.
"""Implement a BallotBox class: cast, retract, count, leader, standings, with seed-drawn tie and re-vote rules."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "BallotBoxClass",
    "domain": "code",
    "description": (
        "Implement a stateful BallotBox class for a deputies' vote: cast, retract, count, leader and standings. "
        "Each seed draws the tie-break rule and whether a second vote by the same voter moves the vote or is "
        "refused; hidden tests replay random call scripts. Failing scripts are revealed one per failed try."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "scripts": {"min": 6, "max": 20, "default": 10, "description": "hidden call scripts"},
        "script_length": {"min": 3, "max": 14, "default": 7, "description": "calls per random script"},
    },
    "grounding": (
        "The National Assembly of 1789 voted by head rather than by order; a roll-call vote tallies one vote per "
        "deputy, a deputy may change a vote before the count closes, and ties must be broken by a standing rule."
    ),
    "tags": ["code", "class", "stateful", "multi-turn"],
}

TIE_RULES = {
    "alpha": "ties are broken by candidate name in alphabetical (string) order",
    "listed": "ties are broken by the order of the candidates in the list given to the constructor",
    "short": "ties are broken by shorter name first, then alphabetical (string) order",
}
RETRACT_RULES = {
    "strict": "retract(self, voter) -> None: remove voter's vote; KeyError if voter has no vote",
    "lenient": "retract(self, voter) -> bool: remove voter's vote and return True; return False (and change "
               "nothing) if voter has no vote",
}
REVOTE_RULES = {
    "move": "casting again by a voter who already has a vote moves that vote to the new candidate",
    "refuse": "casting again by a voter who already has a vote raises ValueError and changes nothing",
}
NAME_POOL = ["Danton", "Marat", "Robespierre", "Brissot", "Vergniaud", "Condorcet", "Barnave", "Sieyes",
             "Mirabeau", "Petion"]
VOTERS = ["v1", "v2", "v3", "v4", "v5", "v6"]


def simulate(candidates, calls, tie, revote, retract="strict"):
    """Run calls on a model ballot box; return the list of results ('!KeyError' etc. for raised errors)."""
    votes = {}
    rank = {c: (c if tie == "alpha" else ((len(c), c) if tie == "short" else i)) for i, c in enumerate(candidates)}
    out = []
    for name, args in calls:
        counts = {c: 0 for c in candidates}
        for cand in votes.values():
            counts[cand] = counts[cand] + 1
        if name == "cast":
            voter, cand = args
            if cand not in counts:
                out.append("!KeyError")
            elif voter in votes and revote == "refuse":
                out.append("!ValueError")
            else:
                votes[voter] = cand
                out.append(None)
        elif name == "retract":
            if args[0] not in votes:
                out.append("!KeyError" if retract == "strict" else False)
            else:
                del votes[args[0]]
                out.append(None if retract == "strict" else True)
        elif name == "count":
            out.append(counts[args[0]] if args[0] in counts else "!KeyError")
        elif name == "leader":
            if not votes:
                out.append(None)
            else:
                out.append(min(candidates, key=lambda c: (-counts[c], rank[c])))
        else:
            out.append([[c, counts[c]] for c in sorted(candidates, key=lambda c: (-counts[c], rank[c]))])
    return out


def script_text(candidates, calls):
    parts = [f"b.{name}({', '.join(repr(a) for a in args)})" for name, args in calls]
    return f"(lambda b: [{', '.join(parts)}])(BallotBox({candidates!r}))"


class BallotBoxClass:
    def __init__(self, scripts=10, script_length=7):
        self.n_scripts = scripts
        self.script_length = script_length
        self.tie = "alpha"
        self.revote = "move"
        self.retract = "strict"
        self.candidates = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _random_calls(self, rng, candidates):
        calls = []
        for _ in range(self.script_length):
            r = rng.random()
            if r < 0.5:
                cand = rng.choice(candidates) if rng.random() < 0.9 else "Louis"
                calls.append(("cast", (rng.choice(VOTERS[:4]), cand)))
            elif r < 0.65:
                calls.append(("retract", (rng.choice(VOTERS[:4]),)))
            elif r < 0.75:
                calls.append(("count", (rng.choice(candidates),)))
            elif r < 0.88:
                calls.append(("leader", ()))
            else:
                calls.append(("standings", ()))
        calls.append(("standings", ()))
        calls.append(("leader", ()))
        return calls

    def _add_script(self, candidates, calls):
        """One test per script: a clean script compares every return value; a script that ends in an error is a
        raises test for that error."""
        results = simulate(candidates, calls, self.tie, self.revote, self.retract)
        for k, res in enumerate(results):
            if isinstance(res, str) and res.startswith("!"):
                prefix = calls[: k + 1]
                self.tests.append(raises_test(script_text(candidates, prefix), res[1:]))
                self.labels.append(f"BallotBox({candidates!r}) then {self._calls_label(prefix)} -> raises {res[1:]}")
                return
        conv = results
        self.tests.append(equality_test(script_text(candidates, calls), conv))
        self.labels.append(f"BallotBox({candidates!r}) then {self._calls_label(calls)} -> returns {conv!r}")

    def _calls_label(self, calls):
        return "; ".join(f"{n}({', '.join(repr(a) for a in args)})" for n, args in calls)

    def reset(self, rng, options):
        self.turn = 0
        self.tie = rng.choice(sorted(TIE_RULES))
        self.revote = rng.choice(sorted(REVOTE_RULES))
        self.retract = rng.choice(sorted(RETRACT_RULES))
        pool = list(NAME_POOL)
        rng.shuffle(pool)
        self.candidates = pool[:3]
        self.tests, self.labels, self.visible = [], [], []
        a, b, c = self.candidates
        # the shown example: a tie between the first two candidates, then a re-vote
        example = [("cast", ("v1", b)), ("cast", ("v2", a)), ("leader", ()), ("standings", ())]
        self._add_script(self.candidates, example)
        self.visible.append(self.tests[0])
        fixed = [
            [("cast", ("v1", a)), ("cast", ("v1", c)), ("count", (a,)), ("count", (c,)), ("leader", ())],
            [("leader", ()), ("cast", ("v3", c)), ("retract", ("v3",)), ("leader", ()), ("standings", ())],
            [("cast", ("v1", a)), ("retract", ("v2",))],
            [("count", ("Louis",))],
            [("cast", ("v1", c)), ("cast", ("v2", b)), ("cast", ("v3", a)), ("standings", ())],
        ]
        for calls in fixed:
            self._add_script(self.candidates, calls)
        seen = set()
        for _ in range(self.n_scripts * 3):
            if len(self.tests) >= 6 + self.n_scripts:
                break
            names = list(NAME_POOL)
            rng.shuffle(names)
            cands = names[: rng.randint(2, 4)]
            calls = self._random_calls(rng, cands)
            key = repr((cands, calls))
            if key not in seen:
                seen.add(key)
                self._add_script(cands, calls)
        shown = self.labels[0]
        return self._task(shown), {"tie_rule": self.tie, "revote_rule": self.revote, "retract_rule": self.retract}

    def _task(self, shown):
        return (
            "Implement this class in Python and reply with it in a ```python block.\n\n"
            "class BallotBox:\n"
            "    __init__(self, candidates): candidates is a list of distinct names; every candidate starts at 0.\n"
            "    cast(self, voter, candidate) -> None: record voter's vote; KeyError if candidate is not one of the "
            "candidates (nothing changes). Re-vote rule: " + REVOTE_RULES[self.revote] + ".\n"
            "    " + RETRACT_RULES[self.retract] + ".\n"
            "    count(self, candidate) -> int: current votes for candidate; KeyError for an unknown name.\n"
            "    leader(self) -> str or None: the candidate with the most votes, None while no votes are held.\n"
            "    standings(self) -> list of [name, votes] lists for every candidate (zero votes included), most "
            "votes first.\n"
            "Tie rule (leader and standings): " + TIE_RULES[self.tie] + ".\n\n"
            f"Example test (a script of calls on one new box and its return values):\n  {shown}\n"
            f"Hidden tests replay other scripts. You have {ENV_SPEC['max_turns']} tries."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "BallotBox" not in defined_names(code):
            error = "your code does not define class BallotBox at the top level"
        if error is not None:
            obs = f"Format error: {error}. Send the class in a ```python block. Tries left: {left}."
            return obs, 0.0, False, left <= 0, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} scripts pass.", 1.0, True, False, info
        text = describe_results(result, self.visible, self.labels)
        if result["error"] is None:
            for i, item in enumerate(result["results"]):
                if not item["ok"] and self.tests[i] not in self.visible:
                    self.visible.append(self.tests[i])
                    text = text + f"\nNow visible, failing: {self.labels[i]}\n  error: {(item['error'] or '')[:300]}"
                    break
        return f"{text}\nTries left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        tie = {"alpha": "compare names as strings", "listed": "remember each candidate's position in the list",
               "short": "compare (len(name), name)"}[self.tie]
        re_vote = ("check whether the voter already voted before recording, and raise before changing anything"
                   if self.revote == "refuse" else "a dict voter -> candidate makes moving a vote a plain overwrite")
        return (f"Keep a dict voter -> candidate and derive counts from it; sort by (-votes, tie key) where for the "
                f"tie key you {tie}; {re_vote}; validate the candidate name before touching state.")

    def reference_action(self):
        if self.tie == "alpha":
            key = "(-counts[c], c)"
        elif self.tie == "short":
            key = "(-counts[c], len(c), c)"
        else:
            key = "(-counts[c], self.order[c])"
        if self.revote == "refuse":
            revote = "        if voter in self.votes:\n            raise ValueError(voter)\n"
        else:
            revote = ""
        if self.retract == "strict":
            retract = ("        if voter not in self.votes:\n            raise KeyError(voter)\n"
                       "        del self.votes[voter]\n\n")
        else:
            retract = ("        if voter not in self.votes:\n            return False\n"
                       "        del self.votes[voter]\n        return True\n\n")
        code = (
            "class BallotBox:\n"
            "    def __init__(self, candidates):\n"
            "        self.order = {c: i for i, c in enumerate(candidates)}\n"
            "        self.votes = {}\n\n"
            "    def _counts(self):\n"
            "        counts = {c: 0 for c in self.order}\n"
            "        for c in self.votes.values():\n"
            "            counts[c] += 1\n"
            "        return counts\n\n"
            "    def cast(self, voter, candidate):\n"
            "        if candidate not in self.order:\n"
            "            raise KeyError(candidate)\n"
            + revote +
            "        self.votes[voter] = candidate\n\n"
            "    def retract(self, voter):\n"
            + retract +
            "    def count(self, candidate):\n"
            "        return self._counts()[candidate]\n\n"
            "    def _ranked(self):\n"
            "        counts = self._counts()\n"
            f"        return sorted(self.order, key=lambda c: {key})\n\n"
            "    def leader(self):\n"
            "        if not self.votes:\n"
            "            return None\n"
            "        return self._ranked()[0]\n\n"
            "    def standings(self):\n"
            "        counts = self._counts()\n"
            "        return [[c, counts[c]] for c in self._ranked()]\n"
        )
        return "```python\n" + code + "```"
