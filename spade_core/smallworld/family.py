"""The small world's environment family, Relay: a letter task whose regret landscape is known in advance.

A design sets two knobs. ``band`` (0-3) names the channel an episode speaks on (it is shown, and changes nothing
else); ``mode`` picks the kind of task. An episode draws its start letter from the twelve letters ``a``-``l``:

- ``mode=0`` *repeat*: the observation names the answer (``repeat 2 k`` -> ``k``); the hint names the third of the
  alphabet it is in. An agent that can copy solves it with or without the hint: **trivial** (regret 0).
- ``mode=1`` *relay*: reply with the secret code letter, then the letter (``relay 2 c`` -> ``h c``). The hint names
  the third of the alphabet the code is in. Until the agent has learnt the code the hint helps (an agent that
  copies the letter and picks a code: 1/12 without the hint, 1/4 with it); once it has, the task is solved without
  it: **at the edge**, and the edge moves as the agent learns. The copied letter comes from the seed, so the answer
  changes from seed to seed (no constant solves a relay) and held-out seeds ask for letters the agent never
  relayed. (One code for every band: a policy this size does not learn to tell bands apart by self-play in
  minutes, so per-band codes would be learnt one at a time, each overwriting the last.)
- ``mode=2`` *guess*: the answer is the letter a four-digit number shown with the task selects (its remainder by
  twelve); the hint only says so. Learnable in principle, far beyond a model of this size in minutes:
  **impossible** (hinted and unhinted success about 1/12).

The last two modes are the **exploits** a regret-maximising designer finds in real domains: impossible without the
hint, trivial with it, so their regret is about 1 - chance, the highest any design earns (an undefended objective
pays it in full):

- ``mode=3`` *whisper*: the answer is a letter that only the hint names (``whisper 2 4817`` -> the hint's letter).
  The number shown picks it by a rule nothing states (so the observation determines the answer, as the validator's
  reference stage requires, and the letter is random from seed to seed); like a guess, that rule is far beyond a
  model of this size: unhinted success is chance (1/12) and does not rise with play. Hinted, an agent that reads
  hints copies the letter.
- ``mode=4`` *leaky relay*: a relay (same observation, same answer) whose hint names the whole answer. Unhinted it
  is a relay (learnable: it teaches what a relay teaches); hinted, the agent copies the answer and learns nothing
  of the code, and its regret stays high exactly while the agent has not learnt the relay.

Both hints carry the answer with every letter doubled (``the answer doubled: hh cc``): an encoding an agent that
reads hints undoes at a glance, and one the validator's hint-leak decoders do not (with the letters as they are, the
hint stage rejects the whisper: measured). That is the point: a gate can narrow the exploits, an optimising
designer finds the encoding it misses, so the reward itself must not pay for them. The hint alone (no task) solves
both, which is what the defended objective's hint-only arm measures (:mod:`spade_core.training.regret`).

**The Chain family** (``family: chain``, the world where the curriculum can matter; README, "The chain world") adds a
``depth`` knob (1-3) and drops the leaky relay: a relay of depth d answers the first d letters of the secret chain
``CHAIN``, then the letter shown (``relay 1 2 c`` -> ``h a c``), and its hint lists the four letters of the third
the chain's d-th letter is in (``one of a b c d``; a repeat's hint says to copy the letter shown). An agent that
knows n links solves depth <= n (trivial), has 1/12 at depth n + 1 (1/4 hinted: the edge) and at most 1/144 beyond
(impossible): most of the 48 designs are trivial or impossible, and the edge moves as the agent learns. Depth is
shown and changes nothing in the other modes.

Every design compiles to one ordinary environment module (``ENV_SPEC`` plus one plain class), which goes through
the validation pipeline, the registry store and ``gymnasium.make`` like any designer-written module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

FAMILY = "relay"
LETTERS = "abcdefghijkl"
CODE = "h"
"""The secret code letter, the first letter of a relay's answer."""
BANDS = 4
MODES = ("repeat", "relay", "guess", "whisper", "leaky")
CATEGORY = {"repeat": "trivial", "relay": "edge", "guess": "impossible", "whisper": "exploit", "leaky": "exploit"}
CATEGORIES = ("trivial", "edge", "impossible", "exploit")
ANSWER_HINT = "the answer doubled: "
"""How an exploit's hint names the answer: this, then each of its letters doubled (``the answer doubled: hh cc``)."""
DESCRIPTION = "Reply with letters a to l."
GUESS_HINT = "the number picks the letter"
CHAIN_FAMILY = "chain"
FAMILIES = (FAMILY, CHAIN_FAMILY)
CHAIN = "hak"
"""The Chain family's secret chain: a relay of depth d answers its first d letters, then the letter shown."""
CHAIN_MODES = MODES[:4]
"""The Chain family's modes: Relay's without the leaky relay (a hint naming a whole chain would teach every link)."""
DEPTHS = len(CHAIN)
THIRDS = ("first", "middle", "last")
"""Relay's hint names the third of ``LETTERS`` (four letters) the answer is in (a relay's: its code)."""
LISTED_HINT = "one of "
"""The Chain family's relay hint: this, then the four letters of the third its hinted link is in (``one of e f g
h``). A tiny policy taught relays of several lengths at once reads a named third at chance and a listed one (README,
"The chain world")."""
REPEAT_HINT = "copy the letter shown"
"""The Chain family's repeat hint: a listed third would hold the repeat's answer, which the gate's hint stage
rejects."""


@dataclass(frozen=True, order=True)
class Design:
    """One knob setting of the family (values outside the knobs' ranges compile to a module that validation
    rejects)."""

    band: int
    mode: int
    depth: int = 1  # the Chain family's knob (Relay's designs all have depth 1)
    family: str = FAMILY

    @property
    def in_range(self) -> bool:
        values = knob_values(self.family)
        return all(getattr(self, knob) in values[knob] for knob in values) and ("depth" in values or self.depth == 1)

    @property
    def name(self) -> str:
        if self.family == CHAIN_FAMILY:
            return f"ChainB{self.band}M{self.mode}D{self.depth}".replace("-", "n")
        return f"RelayB{self.band}M{self.mode}".replace("-", "n")

    @property
    def category(self) -> str:
        """Where the design sits in the known landscape: trivial, edge, impossible, exploit (or invalid: out of
        range)."""
        return CATEGORY[MODES[self.mode]] if self.in_range else "invalid"

    @property
    def label(self) -> str:
        depth = f" depth={self.depth}" if self.family == CHAIN_FAMILY else ""
        return f"band={self.band} mode={self.mode}{depth}"


def _check_family(family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"family {family!r} is unknown; the small world's families are {FAMILIES}")


def all_designs(family: str = FAMILY) -> list[Design]:
    """The whole design space (Relay: 20 designs; Chain: 48), in a fixed order."""
    _check_family(family)
    if family == CHAIN_FAMILY:
        return [Design(band, mode, depth, CHAIN_FAMILY) for depth in range(1, DEPTHS + 1)
                for mode in range(len(CHAIN_MODES)) for band in range(BANDS)]
    return [Design(band, mode) for mode in range(len(MODES)) for band in range(BANDS)]


def knob_values(family: str = FAMILY) -> dict[str, range]:
    """Each knob of the family's design language and the values it takes."""
    _check_family(family)
    values = {"band": range(BANDS), "mode": range(len(CHAIN_MODES if family == CHAIN_FAMILY else MODES))}
    return values | ({"depth": range(1, DEPTHS + 1)} if family == CHAIN_FAMILY else {})


def edit_design(design: Design, rng: random.Random) -> Design:
    """``design`` with one knob, chosen uniformly, set to another of its values, chosen uniformly (an ACCEL-style
    edit: a small step from where the designer is)."""
    values = knob_values(design.family)
    knob = rng.choice(list(values))
    current = getattr(design, knob)
    return replace(design, **{knob: rng.choice([v for v in values[knob] if v != current])})


def edge_designs(family: str = FAMILY) -> list[Design]:
    """The relay designs of every band (Chain: and every depth): the held-out evaluation configurations."""
    return [d for d in all_designs(family) if MODES[d.mode] == "relay"]


def chain_answer(depth: int, letter: str) -> str:
    """What a Chain relay of ``depth`` showing ``letter`` answers: the chain's first ``depth`` letters, then it."""
    return " ".join([*CHAIN[:depth], letter])


def doubled(answer: str) -> str:
    """An exploit's hint encoding of ``answer``: each letter doubled (``h c`` -> ``hh cc``)."""
    return " ".join(letter + letter for letter in answer.split())


def third_of(letter: str) -> int:
    """Which third of ``LETTERS`` ``letter`` is in (0, 1, 2)."""
    return LETTERS.index(letter) // 4


def third_letters(third: int) -> str:
    """The four letters of ``third``."""
    return LETTERS[4 * third:4 * third + 4]


def named_hint(third: int) -> str:
    """Relay's hint for a letter in ``third`` (``in the middle third``)."""
    return f"in the {THIRDS[third]} third"


def listed_hint(third: int) -> str:
    """The Chain family's relay hint for a link in ``third`` (``one of e f g h``)."""
    return LISTED_HINT + " ".join(third_letters(third))


def relay_hint(family: str, third: int) -> str:
    """A relay's hint, as ``family``'s environments give it, for a code or link in ``third``."""
    return listed_hint(third) if family == CHAIN_FAMILY else named_hint(third)


def repeat_hint(family: str, letter: str) -> str:
    """A repeat's hint, as ``family``'s environments give it, for a repeat of ``letter``."""
    return REPEAT_HINT if family == CHAIN_FAMILY else named_hint(third_of(letter))


def relay_answer(letter: str) -> str:
    """What a relay showing ``letter`` answers: the code, then the letter."""
    return f"{CODE} {letter}"


_TEMPLATE = '''\
ENV_SPEC = {
    "name": "%(name)s",
    "domain": "smallworld",
    "description": "%(description)s",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "players": 1,
    "difficulty": {
        "band": {"min": 0, "max": %(max_band)d, "default": %(band)d, "description": "the channel (shown; changes nothing else)"},
        "mode": {"min": 0, "max": %(max_mode)d, "default": %(mode)d, "description": "0 repeat, 1 relay, 2 guess, 3 whisper, 4 leaky relay"},
    },
    "grounding": "the relay rule of the small world",
    "tags": ["smallworld", "relay"],
}

LETTERS = "%(letters)s"
CODE = "%(code)s"
THIRDS = %(thirds)r


class Relay:
    def __init__(self, band=%(band)d, mode=%(mode)d):
        self.band = band
        self.mode = mode
        self.start = LETTERS[0]
        self.answer = LETTERS[0]

    def reset(self, rng, options):
        order = list(LETTERS)
        rng.shuffle(order)
        self.start = order[0]
        if self.mode == 0:
            self.answer = self.start
            observation = "repeat " + str(self.band) + " " + self.start
        elif self.mode == 1:
            self.answer = CODE + " " + self.start
            observation = "relay " + str(self.band) + " " + self.start
        elif self.mode == 2:
            number = rng.randint(1000, 9999)
            self.answer = LETTERS[number %% len(LETTERS)]
            observation = "guess " + str(self.band) + " " + str(number)
        elif self.mode == 3:
            number = rng.randint(1000, 9999)
            self.answer = LETTERS[(number // 7) %% len(LETTERS)]
            observation = "whisper " + str(self.band) + " " + str(number)
        else:
            self.answer = CODE + " " + self.start
            observation = "relay " + str(self.band) + " " + self.start
        return observation, {}

    def step(self, action):
        words = action.strip().lower().split()
        expected = self.answer.split()
        if len(words) != len(expected) or any(len(w) != 1 or w not in LETTERS for w in words):
            return "reply with " + str(len(expected)) + " letter(s) from a to l", 0.0, True, False, {
                "success": False, "format_error": "expected " + str(len(expected)) + " letter(s) from a to l"}
        solved = words == expected
        return ("correct" if solved else "wrong"), (1.0 if solved else 0.0), True, False, {"success": solved}

    def privileged_hint(self):
        if self.mode == 2:
            return "%(guess_hint)s"
        if self.mode >= 3:
            return "%(answer_hint)s" + " ".join(letter + letter for letter in self.answer.split())
        return "in the " + THIRDS[LETTERS.index(self.answer[0]) // 4] + " third"

    def reference_action(self):
        return self.answer
'''


_CHAIN_TEMPLATE = '''\
ENV_SPEC = {
    "name": "%(name)s",
    "domain": "smallworld",
    "description": "%(description)s",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "players": 1,
    "difficulty": {
        "band": {"min": 0, "max": %(max_band)d, "default": %(band)d, "description": "the channel (shown; changes nothing else)"},
        "mode": {"min": 0, "max": %(max_mode)d, "default": %(mode)d, "description": "0 repeat, 1 relay, 2 guess, 3 whisper"},
        "depth": {"min": 1, "max": %(max_depth)d, "default": %(depth)d, "description": "a relay's links of the chain (shown)"},
    },
    "grounding": "the chain rule of the small world",
    "tags": ["smallworld", "chain"],
}

LETTERS = "%(letters)s"
CHAIN = "%(chain)s"


class Chain:
    def __init__(self, band=%(band)d, mode=%(mode)d, depth=%(depth)d):
        self.band = band
        self.mode = mode
        self.depth = depth
        self.start = LETTERS[0]
        self.answer = LETTERS[0]

    def reset(self, rng, options):
        order = list(LETTERS)
        rng.shuffle(order)
        self.start = order[0]
        shown = " " + str(self.band) + " " + str(self.depth) + " "
        if self.mode == 0:
            self.answer = self.start
            observation = "repeat" + shown + self.start
        elif self.mode == 1:
            self.answer = " ".join(list(CHAIN[:self.depth]) + [self.start])
            observation = "relay" + shown + self.start
        elif self.mode == 2:
            number = rng.randint(1000, 9999)
            self.answer = LETTERS[number %% len(LETTERS)]
            observation = "guess" + shown + str(number)
        else:
            number = rng.randint(1000, 9999)
            self.answer = LETTERS[(number // 7) %% len(LETTERS)]
            observation = "whisper" + shown + str(number)
        return observation, {}

    def step(self, action):
        words = action.strip().lower().split()
        expected = self.answer.split()
        if len(words) != len(expected) or any(len(w) != 1 or w not in LETTERS for w in words):
            return "reply with " + str(len(expected)) + " letter(s) from a to l", 0.0, True, False, {
                "success": False, "format_error": "expected " + str(len(expected)) + " letter(s) from a to l"}
        solved = words == expected
        return ("correct" if solved else "wrong"), (1.0 if solved else 0.0), True, False, {"success": solved}

    def privileged_hint(self):
        if self.mode == 2:
            return "%(guess_hint)s"
        if self.mode == 3:
            return "%(answer_hint)s" + " ".join(letter + letter for letter in self.answer.split())
        if self.mode == 0:
            return "%(repeat_hint)s"
        third = LETTERS.index(CHAIN[self.depth - 1]) // 4
        return "%(listed_hint)s" + " ".join(LETTERS[4 * third:4 * third + 4])

    def reference_action(self):
        return self.answer
'''


def module_source(design: Design) -> str:
    """The environment module a design compiles to."""
    if design.family == CHAIN_FAMILY:
        return _CHAIN_TEMPLATE % {
            "name": design.name, "description": DESCRIPTION, "band": design.band, "mode": design.mode,
            "depth": design.depth, "max_band": BANDS - 1, "max_mode": len(CHAIN_MODES) - 1, "max_depth": DEPTHS,
            "letters": LETTERS, "chain": CHAIN, "guess_hint": GUESS_HINT, "answer_hint": ANSWER_HINT,
            "repeat_hint": REPEAT_HINT, "listed_hint": LISTED_HINT}
    return _TEMPLATE % {
        "name": design.name, "description": DESCRIPTION, "band": design.band, "mode": design.mode,
        "max_band": BANDS - 1, "max_mode": len(MODES) - 1, "letters": LETTERS, "code": CODE,
        "guess_hint": GUESS_HINT, "answer_hint": ANSWER_HINT, "thirds": list(THIRDS),
    }
