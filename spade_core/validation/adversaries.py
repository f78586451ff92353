"""Adversarial policies: cheap players that must NOT win a sound environment.

Each one stands for a way a task can be won without solving it: a plausible constant (``0``-``9``, ``A``-``D``,
yes/no, true/false, empty), the same well-formed action repeated to the end, a value copied from the observation,
one action holding many candidates at once (all digits, a de Bruijn string that contains every 2- or 3-digit
number), enumeration ``0, 1, 2, ...`` up to ``max_turns`` (an unenforced try limit), a policy that follows the
hint's instructions, and, for two-player games, a random player choosing among the legal moves.

Actions are written in the environment's own answer format when the reference's actions show one (``\\boxed{}``,
``Answer: N``): :class:`ActionTemplate` puts a candidate where the reference puts its answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spade_core import linear_re
from spade_core.contract.env import LEGAL_MOVES_KEY, SpadeEnv
from spade_core.linear_re import DIGIT, WORD, is_word_char
from spade_core.validation.episodes import Policy
from spade_core.validation.hint_leaks import follow_candidates, words_to_digits

_BOXED = linear_re.compile(r"\\boxed\{(?:[^{}]|\{[^{}]*\})*\}")
_NUMBER = linear_re.compile(rf"(?:^|[^{WORD}.])(?P<n>-?{DIGIT}+(?:\.{DIGIT}+)?)")  # not after a word or "."
_JSONISH = linear_re.compile(r"^\s*[\[{]")
_CHOICE = linear_re.compile(r"(?:^|[\s(\[])([A-H])[).:\]]")
_LABEL = linear_re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,20}:\s*)")
_QUOTED = linear_re.compile(r"'([^'\n]{1,30})'")
_CAPITALISED = linear_re.compile(r"[A-Z][a-z]{3,}")
_OFFERED = linear_re.compile(r"(?i)(?:legal|valid|possible) moves?[^:\n]*:\s*([^\n]+)")
_OR_SEPARATED = linear_re.compile(r",|or")
_DIGIT_RUN = linear_re.compile(rf"(?:^|[^{WORD}.])(?P<n>{DIGIT}+)")  # not after a word or "."
MAX_OBSERVATION_CHARS = 4000
"""Only this much of an observation is searched for values and moves."""

CONSTANTS = (*[str(d) for d in range(10)], "A", "B", "C", "D", "yes", "no", "true", "false", "")
"""Plausible constant answers."""


def de_bruijn(alphabet: str, order: int) -> str:
    """The shortest string holding every ``order``-long word over ``alphabet`` (linear form)."""
    k, a, sequence = len(alphabet), [0] * len(alphabet) * order, []

    def db(t: int, p: int) -> None:
        if t > order:
            if order % p == 0:
                sequence.extend(a[1:p + 1])
        else:
            a[t] = a[t - p]
            db(t + 1, p)
            for j in range(a[t - p] + 1, k):
                a[t] = j
                db(t + 1, t)

    db(1, 1)
    text = "".join(alphabet[i] for i in sequence)
    return text + text[: order - 1]


RAW_CONSTANTS = ("0", "1", "A", "yes", "true", "", "0123456789", de_bruijn("0123456789", 3))
"""Constants also tried without the answer format when the reference shows one."""

CONCATENATIONS = ("0123456789", de_bruijn("0123456789", 2), de_bruijn("0123456789", 3), "A B C D E",
                  "yes no true false", " ".join(str(i) for i in range(100)))
"""Single actions that hold many candidates at once: a substring or ``any``-style check accepts them."""


@dataclass(frozen=True)
class ActionTemplate:
    """Where the reference's final action puts its answer: ``\\boxed{537}`` -> ``\\boxed{{}}``."""

    prefix: str = ""
    suffix: str = ""

    @property
    def raw(self) -> bool:
        return not self.prefix and not self.suffix

    def render(self, value: str) -> str:
        return f"{self.prefix}{value}{self.suffix}"

    @classmethod
    def of(cls, action: str) -> ActionTemplate:
        if len(action) > 200 or _JSONISH.match(action):
            return cls()
        boxed = list(_BOXED.finditer(action))
        if boxed:
            last = boxed[-1]
            return cls(action[: last.start()] + "\\boxed{", "}" + action[last.end():])
        numbers = list(_NUMBER.finditer(action))
        if numbers and len(action) <= 40 and "\n" not in action and "`" not in action:
            last = numbers[-1]
            return cls(action[: last.start("n")], action[last.end("n"):])
        label = _LABEL.match(action)
        return cls(label.group(1)) if label else cls()


@dataclass(frozen=True)
class Adversary:
    """A named policy; ``make()`` gives a fresh instance (policies may keep per-episode state)."""

    name: str
    make: Callable[[], Policy]
    max_steps: int | None = None  # None: to the end of the episode


PROBE_STEPS = 2
"""Steps a constant plays when another constant already stands for "the same action repeated to the end": a
constant that is the answer wins at its first step."""


def constant(action: str, max_steps: int | None = None) -> Adversary:
    shown = repr(action) if len(action) <= 40 else f"{action[:30]!r}... ({len(action)} characters)"
    return Adversary(f"the constant {shown} repeated every turn", lambda: (lambda env, obs, info: action), max_steps)


def _cycling(name: str, choose: Callable[[str, int], list[str]], max_steps: int | None = None) -> Adversary:
    """Plays ``choose(first_observation, turn)[turn]``-style sequences: one new candidate per turn."""

    def make() -> Policy:
        state: dict[str, Any] = {"first": "", "env": None}

        def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
            if env.turn == 0 or state["env"] is not env:
                state["first"], state["env"] = obs, env
            options = choose(state["first"], env.turn) or [""]
            return options[env.turn % len(options)]

        return policy

    return Adversary(name, make, max_steps)


COPIED_VALUES = 12
"""Values of the first observation the copying policies try (each one, every turn)."""


def observation_values(obs: str, limit: int = COPIED_VALUES) -> list[str]:
    """Numbers (digits or words), lettered choices and quoted words of an observation, in order of appearance."""
    obs = obs[:MAX_OBSERVATION_CHARS]
    found = [m.group("n") for m in _NUMBER.finditer(obs)]
    found += [m.group("n") for m in _NUMBER.finditer(words_to_digits(obs))]
    found += _CHOICE.findall(obs)
    found += _QUOTED.findall(obs)
    found += _names_inside_sentences(obs)
    return list(dict.fromkeys(found))[:limit]


def copy_observation(template: ActionTemplate, index: int | None) -> Adversary:
    """Copy the ``index``-th value of the first observation every turn, or (``None``) try each one in turn."""
    if index is None:
        return _cycling("copying each value of the observation in turn",
                        lambda first, turn: [template.render(v) for v in observation_values(first)], 12)

    def pick(first: str, turn: int) -> list[str]:
        values = observation_values(first)
        return [template.render(values[index])] if index < len(values) else [template.render("")]

    return _cycling(f"copying value #{index + 1} of the observation", pick, PROBE_STEPS)


def enumeration(template: ActionTemplate, max_turns: int) -> Adversary:
    return _cycling(f"enumerating 0, 1, 2, ... up to max_turns ({max_turns})",
                    lambda first, turn: [template.render(str(turn))])


def hint_follower(template: ActionTemplate, attempt: int = 0) -> Adversary:
    """Reads the hint every turn and plays what it says to play (boxed or quoted text, the words after an
    instruction verb, a number it states), a new candidate each turn; ``attempt`` picks which candidate a
    single-turn episode plays."""

    def make() -> Policy:
        tried: dict[int, set[str]] = {}

        def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
            key = id(env)
            if env.turn == 0 or key not in tried:
                tried[key] = set()
            candidates = []
            for candidate in follow_candidates(env.privileged_hint()):
                rendered = candidate if candidate.startswith(template.prefix) or template.raw else \
                    template.render(candidate)
                candidates += [rendered, candidate]
            fresh = [c for c in dict.fromkeys(candidates) if c not in tried[key]]
            if env.turn == 0 and attempt:
                fresh = fresh[attempt:] or fresh
            action = fresh[0] if fresh else env.privileged_hint()
            tried[key].add(action)
            return action

        return policy

    return Adversary("following the hint's instructions" + (f" (candidate #{attempt + 1})" if attempt else ""),
                     make)


def _names_inside_sentences(text: str) -> list[str]:
    """Capitalised words of four or more letters that do not start the text or a sentence."""
    names = []
    for match in _CAPITALISED.finditer(text):
        start, end = match.span()
        sentence_start = start >= 2 and text[start - 2] in ".!?" and text[start - 1].isspace()
        if start > 0 and not sentence_start and _alone(text, start, end):
            names.append(match.group())
    return names


def _alone(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` has no word character on either side (``\\b`` at both ends, in Python's
    Unicode sense)."""
    return (start == 0 or not is_word_char(text[start - 1])) and (end == len(text) or not is_word_char(text[end]))


def _split_or(text: str) -> list[str]:
    """``text`` cut at each comma and each word "or"."""
    pieces, last = [], 0
    for match in _OR_SEPARATED.finditer(text):
        if match.group() == "or" and not _alone(text, *match.span()):
            continue
        pieces.append(text[last:match.start()])
        last = match.end()
    return [*pieces, text[last:]]


def _short_numbers(text: str) -> list[str]:
    """The one- and two-digit numbers standing alone (no word character or "." on either side)."""
    out = []
    for match in _DIGIT_RUN.finditer(text):
        end = match.end("n")
        alone = end == len(text) or not (is_word_char(text[end]) or text[end] == ".")
        if len(match.group("n")) <= 2 and alone:
            out.append(match.group("n"))
    return out


def random_legal(seed: int) -> Policy:
    """Plays a uniformly random legal move: from ``info['legal_moves']`` when the game lists them, else from the
    short numbers and words the observation offers (a game that lists no legal moves is played more crudely)."""
    rng = random.Random(seed)

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        legal = info.get(LEGAL_MOVES_KEY)
        if isinstance(legal, list) and legal and all(isinstance(m, str) for m in legal):
            return rng.choice(legal)
        obs = obs[:MAX_OBSERVATION_CHARS]
        offered = _OFFERED.search(obs)
        if offered:
            moves = [m.strip(" .") for m in _split_or(offered.group(1)) if m.strip(" .")]
            if moves:
                return rng.choice(moves)
        numbers = _short_numbers(obs)
        return rng.choice(numbers) if numbers else env.action_space.sample()

    return policy


OFFERED_REPLIES = 4
"""Replies an observation quotes ("reply 'deal' or 'sit out'") that are each repeated to the end."""
OFFERED_STEPS = 60
"""Steps one repeated offered reply plays at most."""


def offered_reply(index: int) -> Adversary:
    """The ``index``-th reply the first observation quotes, every turn: a game won by always sitting out, always
    passing or always taking the same offer is won without playing."""

    def pick(first: str, turn: int) -> list[str]:
        quoted = list(dict.fromkeys(m.group(1).strip() for m in _QUOTED.finditer(first[:MAX_OBSERVATION_CHARS])))
        return [quoted[index]] if index < len(quoted) else [""]

    return _cycling(f"repeating reply #{index + 1} the observation quotes, every turn", pick, OFFERED_STEPS)


def adversaries(template: ActionTemplate, *, max_turns: int, single_turn: bool) -> list[Adversary]:
    """The fixed set, in the answer format ``template`` (and raw)."""
    to_the_end = {"1", "A"}
    out = [constant(template.render(c), None if c in to_the_end else PROBE_STEPS)
           for c in CONSTANTS if not (c == "" and not template.raw)]
    out += [constant(template.render(c), PROBE_STEPS) for c in CONCATENATIONS]
    if not template.raw:  # the bare forms too, in case the format is not enforced
        out += [constant(c, None if c in to_the_end else PROBE_STEPS) for c in RAW_CONSTANTS]
    out += [copy_observation(template, i) for i in range(COPIED_VALUES)]
    if not single_turn:
        out.append(copy_observation(template, None))
        out.append(enumeration(template, max_turns))
        out += [offered_reply(i) for i in range(OFFERED_REPLIES)]
    return out
