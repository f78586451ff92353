"""Adversarial policies: cheap players that must NOT win a sound environment.

Each one stands for a way a task can be won without solving it: a plausible constant (``0``-``9``, ``A``-``D``,
yes/no, true/false, empty), the same well-formed action repeated to the end, a value copied from the observation,
one action holding many candidates at once (all digits, a de Bruijn string that contains every 2- or 3-digit
number), enumeration ``0, 1, 2, ...`` up to ``max_turns`` (an unenforced try limit), every answer of the shape the
reference's answers share tried in turn where the space fits in the turns, the answer-format example each
observation shows copied (and the first observation's examples tried in turn: options with a try each), a wrong try
then the numbers its feedback shows read as offsets, a policy that follows the hint's instructions, and, for
two-player games, a random player choosing among the legal moves.

Actions are written in the environment's own answer format when the reference's actions show one (``\\boxed{}``,
``Answer: N``): :class:`ActionTemplate` puts a candidate where the reference puts its answer.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
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


_LISTED = linear_re.compile(r"(?m):\s*([^:\n]{3,400})$")
TRIM = " \t.,;:!?()[]{}'\"`$"
"""Punctuation stripped from a value read off an observation."""


def listed_items(obs: str) -> list[str]:
    """The items of every list an observation shows after a colon (``Still hidden: o, p, r, t``; ``Options: red or
    blue``), in order, each once."""
    found = []
    for match in _LISTED.finditer(obs[:MAX_OBSERVATION_CHARS]):
        items = match.group(1).replace(" or ", ",").split(",")
        if len(items) >= 2:
            found += [item.strip(TRIM) for item in items]
    return [v for v in dict.fromkeys(found) if v]


def copy_listed(template: ActionTemplate) -> Adversary:
    """Each item of the first observation's lists in turn, one per turn: a task whose status line lists what is left
    to find (the hidden letters, the unvisited rooms) is won by reading it back."""
    return _cycling("copying each listed item of the observation in turn",
                    lambda first, turn: [template.render(v) for v in listed_items(first)], COPIED_VALUES)


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


EXAMPLE_CHARS = 80
"""The longest example answer a copier takes from an observation."""


def shown_examples_of(template: ActionTemplate, obs: str) -> list[str]:
    """Every answer in the answer format ``template`` that ``obs`` shows (``Reply like \\boxed{18}``), in order; none
    for a format without a prefix. With no suffix an example runs to the end of its line."""
    obs, found, at = obs[:MAX_OBSERVATION_CHARS], [], 0
    while template.prefix and (at := obs.find(template.prefix, at)) >= 0:
        start = at + len(template.prefix)
        end = obs.find(template.suffix, start) if template.suffix else obs.find("\n", start)
        end = len(obs) if end < 0 and not template.suffix else end
        if end < 0:
            break
        if 0 < end - start <= EXAMPLE_CHARS:
            found.append(template.render(obs[start:end].strip()))
        at = start
    return found


def example_copier(template: ActionTemplate, last: bool) -> Adversary:
    """Each turn, the first (or last) answer in the answer format that the current observation shows: a task whose
    format example ("Reply like \\boxed{18}") is built from the answer is won by copying it."""
    def make() -> Policy:
        def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
            examples = shown_examples_of(template, obs)
            return (examples[-1] if last else examples[0]) if examples else template.render("")
        return policy

    return Adversary(f"copying the {'last' if last else 'first'} example answer each observation shows", make)


def example_cycler(template: ActionTemplate) -> Adversary:
    """Each example answer the first observation shows, in turn, one per turn (``\\boxed{two}, \\boxed{one} or
    \\boxed{none}``): where an item allows as many tries as there are options, or a wrong try is not final, cycling
    through the options solves every item without reading it."""
    return _cycling("trying each example answer the first observation shows in turn",
                    lambda first, turn: list(dict.fromkeys(shown_examples_of(template, first))))


_TOO_HIGH = linear_re.compile(r"(?i)\btoo (?:high|big|large|much|many)\b|\b(?:lower|smaller)\b")
_TOO_LOW = linear_re.compile(r"(?i)\btoo (?:low|small|little|few)\b|\b(?:higher|larger|bigger|greater)\b")


def direction(obs: str) -> int:
    """Which way feedback points: -1 (the answer is lower: "too high", "lower"), +1 ("too low", "higher"), 0 for
    neither or both."""
    obs = obs[:MAX_OBSERVATION_CHARS]
    down, up = bool(_TOO_HIGH.search(obs)), bool(_TOO_LOW.search(obs))
    return -1 if down and not up else 1 if up and not down else 0


def range_listing(template: ActionTemplate, low: int, high: int, max_chars: int) -> list[Adversary]:
    """One action holding many whole numbers, bare and in the answer format, repeated to the end: every one from
    ``min(low, 0)`` to ``2 * high`` where that fits in ``max_chars`` (the action limit), else as many from ``low``
    (the least of the reference's answers over seeds) up to ``high`` as fit. A verifier that accepts the reply when
    any number in it is right is won with it."""
    room = max_chars - len(template.render(""))
    listing, whole = _listed(min(low, 0), max(2 * high, high), room)
    if not whole:
        listing, _ = _listed(low, high, room)
    if not listing:
        return []
    shown = f"the whole numbers {listing[:12]}...{listing[-12:]} in one reply"
    return [Adversary(shown, lambda: (lambda env, obs, info: listing)),
            Adversary(f"{shown}, in the answer format", lambda: (lambda env, obs, info: template.render(listing)))]


def _listed(start: int, stop: int, max_chars: int) -> tuple[str, bool]:
    """The numbers from ``start`` on, space-separated, up to ``stop`` or as many as ``max_chars`` holds ("" when not
    even two fit), and whether all of them up to ``stop`` did."""
    out: list[str] = []
    size = -1
    for n in range(start, stop + 1):
        size += len(str(n)) + 1
        if size > max_chars:
            return (" ".join(out) if len(out) >= 2 else ""), False
        out.append(str(n))
    return (" ".join(out) if len(out) >= 2 else ""), True


def bisection(template: ActionTemplate, low: int, high: int) -> Adversary:
    """Binary search between ``low`` and ``high`` (the range of the reference's answers over seeds, which an agent
    learns in training) steered by the feedback's direction (:func:`direction`); feedback that points nowhere starts
    the search again (a new question)."""
    def make() -> Policy:
        state: dict[str, Any] = {"env": None, "lo": low, "hi": high, "last": low}

        def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
            way = direction(obs) if env.turn and state["env"] is env else 0
            state["env"] = env
            if way > 0:
                state["lo"] = state["last"] + 1
            elif way < 0:
                state["hi"] = state["last"] - 1
            if way == 0 or state["lo"] > state["hi"]:
                state["lo"], state["hi"] = low, high
            state["last"] = (state["lo"] + state["hi"]) // 2
            return template.render(str(state["last"]))
        return policy

    return Adversary(f"searching {low}..{high} by the too-high/too-low feedback", make)


def _run_kind(char: str) -> int:
    return 0 if char.isascii() and char.isalpha() else 1 if char.isascii() and char.isdigit() else 2


def _runs(text: str) -> list[str]:
    """``text`` cut into runs of letters, runs of digits and runs of anything else (``answer 7 light`` ->
    ``answer``, `` ``, ``7``, `` ``, ``light``)."""
    runs: list[str] = []
    for char in text:
        if runs and _run_kind(runs[-1][-1]) == _run_kind(char):
            runs[-1] += char
        else:
            runs.append(char)
    return runs


MAX_UNSEEN = 0.25
"""The most of a slot's values the answers may leave unseen (the Good-Turing estimate: the share of answers whose
value no other answer shares) for the values seen to stand for the whole slot."""


def _slot_values(seen: list[str]) -> list[str] | None:
    """What one varying slot of the answers ranges over: every whole number from the least to the greatest seen (as
    wide as the seen ones when they are written zero-padded to one width), every letter between the least and the
    greatest seen single letters of one case, else the values seen, each once, where they likely are all there are
    (:data:`MAX_UNSEEN`; None otherwise: twelve seeds, twelve different words say nothing of a thirteenth)."""
    if all(v.isdigit() for v in seen):
        numbers = [int(v) for v in seen]
        width = len(seen[0]) if len({len(v) for v in seen}) == 1 and any(v.startswith("0") for v in seen) else 0
        return [str(n).zfill(width) for n in range(min(numbers), max(numbers) + 1)]
    if all(len(v) == 1 for v in seen) and (all(v.isupper() for v in seen) or all(v.islower() for v in seen)):
        return [chr(n) for n in range(ord(min(seen)), ord(max(seen)) + 1)]
    once = sum(1 for v in set(seen) if seen.count(v) == 1)
    return list(dict.fromkeys(seen)) if once <= MAX_UNSEEN * len(seen) else None


def answer_space(answers: Sequence[str], limit: int) -> list[str]:
    """Every answer of the shape the reference's final answers share, when there are at most ``limit`` of them: the
    answers cut into runs (:func:`_runs`); where all have the same runs but for the letters and digits of some slots,
    each such slot ranges over :func:`_slot_values` and the space is their product (``answer 7 light`` and ``answer
    3 heavy`` over seeds: coins 3..7 times heavy, light). Empty where the answers differ in shape, agree everywhere,
    a slot's values seen likely leave others out, or the space holds more than ``limit`` answers."""
    cut = [_runs(a) for a in answers if a and len(a) <= MAX_WALKED_CHARS]
    if len(cut) < 2 or len({len(runs) for runs in cut}) != 1:
        return []
    slots: list[list[str]] = []
    for position in zip(*cut, strict=True):
        seen = list(position)
        if len(set(seen)) > 1 and not all(v.isascii() and v.isalnum() for v in seen):
            return []  # punctuation or spacing differs: not one shape
        values = _slot_values(seen) if len(set(seen)) > 1 else [seen[0]]
        if values is None:
            return []
        slots.append(values)
    if not 2 <= math.prod(len(values) for values in slots) <= limit:
        return []
    return ["".join(parts) for parts in itertools.product(*slots)]


MAX_WALKED_CHARS = 60
"""Final answers longer than this are not walked (a program, a plan, a JSON call)."""


def answer_walk(space: Sequence[str]) -> Adversary:
    """Each answer of :func:`answer_space` in turn, one per turn: an unenforced try limit, or more turns than a
    small answer space holds, lets it win without solving."""
    shown = f"{space[0]!r} ... {space[-1]!r}" if len(space) > 2 else " and ".join(map(repr, space))
    return _cycling(f"walking the reference's answer space ({len(space)} answers: {shown}), one per turn",
                    lambda first, turn: list(space))


FIRST_GUESS = 1
"""The wrong answer :func:`feedback_offset` gives before reading its feedback."""
FEEDBACK_NUMBERS = 2
"""Numbers of a feedback (its echo of the wrong answer aside) the :func:`feedback_offset` policies read."""
OFFSETS = {"plus": 1, "minus": -1, "as the answer": 0}
"""How a feedback number ``n`` is turned into the next try: ``1 + n``, ``1 - n``, or ``n`` itself."""


def _guess_then_read(template: ActionTemplate, guess: int, read: Callable[[str], str]) -> Callable[[], Policy]:
    """Policies that answer ``guess``, then what ``read`` makes of the feedback to it, question after question (a
    new episode, or a new environment, starts with the guess again)."""

    def make() -> Policy:
        state: dict[str, Any] = {"env": None, "guessed": False}

        def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
            if env.turn == 0 or state["env"] is not env or not state["guessed"]:
                state["env"], state["guessed"] = env, True
                return template.render(str(guess))
            state["guessed"] = False
            return template.render(read(obs))
        return policy

    return make


def feedback_offset(template: ActionTemplate, kind: str, index: int) -> Adversary:
    """Turn after turn, :data:`FIRST_GUESS`, then the ``index``-th number ``n`` its feedback shows (the echo of the
    guess aside) read as :data:`OFFSETS` ``kind`` says: feedback that tells how far off a try was ("off by +37") or
    what the answer was is read off, question after question."""
    sign = OFFSETS[kind]

    def read(obs: str) -> str:
        numbers = [Fraction(m.group("n")) for m in _NUMBER.finditer(obs[:MAX_OBSERVATION_CHARS])]
        numbers = [n for n in numbers if n != FIRST_GUESS]
        if index >= len(numbers):
            return ""
        value = FIRST_GUESS + sign * numbers[index] if sign else numbers[index]
        return str(value.numerator) if value.denominator == 1 else str(float(value))

    make = _guess_then_read(template, FIRST_GUESS, read)
    what = f"{FIRST_GUESS} {kind} number #{index + 1}" if sign else f"number #{index + 1}"
    return Adversary(f"answering {FIRST_GUESS}, then {what} of its feedback, each question", make)


HUGE_GUESS = 10_000_000
"""The guess whose relative error, read off the feedback, gives the answer back."""


def _inverted(percent: str) -> str:
    """The shortest decimal ``x`` such that :data:`HUGE_GUESS` is ``percent`` % above it, to ``percent``'s printed
    precision (half a unit of its last place either way)."""
    places = len(percent.partition(".")[2])
    half = Fraction(1, 2 * 10 ** places)
    low, high = (HUGE_GUESS / (1 + (Fraction(percent) + d) / 100) for d in (half, -half))
    middle = (low + high) / 2
    for digits in range(7):
        value = round(middle, digits)
        if low <= value <= high:
            break
    return f"{float(value):.{digits}f}"


def relative_inversion(template: ActionTemplate) -> Adversary:
    """Turn after turn, :data:`HUGE_GUESS`, then that guess divided by one plus the first percentage its feedback
    shows (the echo of the guess aside): feedback that says how many percent off a try was ("is 4066.7% above the
    right value") gives the answer back to the printed precision, question after question."""

    def read(obs: str) -> str:
        shown = [m.group("n") for m in _NUMBER.finditer(obs[:MAX_OBSERVATION_CHARS])]
        shown = [n for n in shown if Fraction(n) != HUGE_GUESS and Fraction(n) > 0]
        return _inverted(shown[0]) if shown else ""

    make = _guess_then_read(template, HUGE_GUESS, read)
    return Adversary(f"answering {HUGE_GUESS}, then it divided by one plus the percentage its feedback shows", make)


_LABELLED = linear_re.compile(r"(?:^|[\s(\[])[A-Ha-h][).:\]]\s*(?P<n>-?[0-9]+(?:\.[0-9]+)?)")
RANKS = {"smallest": 0, "middle": 1, "largest": 2}
"""Which of an observation's numeric options the ranked chooser takes."""
MIN_OPTIONS = 3
"""Numeric options an observation lists before the ranked chooser reads it."""


def numeric_options(obs: str) -> list[Fraction]:
    """The numbers of an observation's lettered options (``(A) 34 sous  (B) 46 sous``, ``C. 12``), in order."""
    return [Fraction(m.group("n")) for m in _LABELLED.finditer(obs[:MAX_OBSERVATION_CHARS])]


def ranked_option(template: ActionTemplate, rank: str) -> Adversary:
    """Every turn, the smallest, middle or largest of the numeric options the current observation lists: distractors
    built as the answer plus and minus fixed steps put the answer in the middle of every question."""

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        options = sorted(numeric_options(obs))
        if len(options) < MIN_OPTIONS:
            return template.render("")
        value = options[[0, len(options) // 2, -1][RANKS[rank]]]
        return template.render(str(value.numerator) if value.denominator == 1 else str(float(value)))

    return Adversary(f"choosing the {rank} numeric option each question", lambda: policy)


def adversaries(template: ActionTemplate, *, max_turns: int, single_turn: bool) -> list[Adversary]:
    """The fixed set, in the answer format ``template`` (and raw)."""
    to_the_end = {"1", "A"}
    out = [constant(template.render(c), None if c in to_the_end else PROBE_STEPS)
           for c in CONSTANTS if not (c == "" and not template.raw)]
    out += [constant(template.render(c), PROBE_STEPS) for c in CONCATENATIONS]
    if not template.raw:  # the bare forms too, in case the format is not enforced
        out += [constant(c, None if c in to_the_end else PROBE_STEPS) for c in RAW_CONSTANTS]
    out += [copy_observation(template, i) for i in range(COPIED_VALUES)]
    if template.prefix:
        out += [example_copier(template, last) for last in (False, True)]
        if not single_turn:
            out.append(example_cycler(template))
    if not single_turn:
        out.append(copy_observation(template, None))
        out.append(copy_listed(template))
        out.append(enumeration(template, max_turns))
        out += [offered_reply(i) for i in range(OFFERED_REPLIES)]
        out += [feedback_offset(template, kind, i) for kind in OFFSETS for i in range(FEEDBACK_NUMBERS)]
        out.append(relative_inversion(template))
    out += [ranked_option(template, rank) for rank in RANKS]
    return out
