'''The files of a new domain plugin package, as ``string.Template`` texts (``$$`` is a literal dollar sign).

Placeholders: ``$name`` (the domain), ``$package`` (the import package, ``spade_<name>``), ``$dist`` (the
distribution), ``$camel`` (the domain in CamelCase) and ``$env_name`` (the seed environment's name).
'''

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "0.1.0"
description = "A SPADE domain plugin: the $name domain"
requires-python = ">=3.11"
dependencies = ["spade-rl"]

[project.entry-points.spade]
$name = "$package.plugin"

[tool.setuptools.packages.find]
include = ["$package*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

README = '''\
# $dist

A [SPADE](https://pypi.org/project/spade-rl/) domain plugin: the `$name` domain.

```bash
pip install -e .          # installs the plugin; SPADE finds it through its `spade` entry point
spade plugins             # lists the $name domain, its seed and its sandbox module
python -m pytest          # the plugin's own tests: loaded, the seed accepted by SPADE's gate, played
spade design --domain $name --n 2              # environments written for the domain
```

What lives where:

- `$package/plugin.py`: the `DomainSpec` (the designer's guidance, the answer kind, worked examples, the helper
  module sandboxed environments may import) and the hooks that hand SPADE the domain, its seeds and its helpers;
- `$package/verify.py`: the parsing helpers environment code imports (exposed to the sandbox by name);
- `$package/seeds/`: trusted seed environments in the designer format (`ENV_SPEC` and one class); replace
  `clock_shift.py` with your own and list each in `SEEDS`;
- `tests/test_plugin.py`: the plugin loaded, every seed accepted by SPADE's gate, the seed played to the end.
'''

PACKAGE_INIT = '''\
"""The $name domain: a SPADE domain plugin."""
'''

PLUGIN = '''\
"""The $name domain plugin: the hooks through which SPADE finds the domain, its seeds and its helpers."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment

DOMAIN = "$name"
VERIFY_MODULE = "$package.verify"
VERIFY_EXPORTS = ("read_clock", "show_clock", "safe_echo")
SEEDS = ("$package.seeds.clock_shift",)

GUIDANCE = """\\
You are designing a $name environment: the agent answers questions over several turns and gets feedback after
each answer.

PARSING: read every reply with the helpers of $package.verify (their exact signatures are in the API REFERENCE at
the end). A reply that does not parse gets info["format_error"] saying the expected form, and the question again.
Quote the agent only through safe_echo(action). Never raise.

REWARD AND INFO
reward_range [0, 1]: 1/questions for each right answer, so a full solve totals 1. info["success"] is True only when
every answer is right.

A GOOD PRIVILEGED HINT
How to work the answer out, never the answer itself.

TRIVIAL OR IMPOSSIBLE (both are rejected)
Trivial: the answer is printed in the observation or one guess covers it. Impossible: the observation does not
determine the answer. A difficulty knob must change the work.
"""


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name=DOMAIN,
            description="Questions answered over several turns, with feedback after each answer.",
            designer_guidance=GUIDANCE,
            worked_examples=SEEDS,
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="label",
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(module) for module in SEEDS]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in VERIFY_EXPORTS}}
'''

VERIFY = '''\
"""The $name domain's helpers, importable from sandboxed environment code (the plugin exposes exactly these names).

A clock time is ``HH:MM`` on a 24-hour clock, alone or as ``\\\\boxed{HH:MM}`` (the last box counts); anything else
reads as no time. Parsing scans the text once, with no regular expressions.
"""

from __future__ import annotations

import string

MAX_REPLY_CHARS = 4000
"""Longer replies are not read (a time is short)."""
MINUTES_PER_DAY = 24 * 60


def read_clock(text: str) -> int | None:
    """The minutes after midnight that ``text`` answers with, or None when it is not one ``HH:MM`` time."""
    if not isinstance(text, str) or len(text) > MAX_REPLY_CHARS:
        return None
    core = text.strip()
    box = core.rfind("\\\\boxed{")
    if box >= 0:
        end = core.find("}", box)
        if end < 0:
            return None
        core = core[box + len("\\\\boxed{"):end]
    words = core.split()
    if not words:
        return None
    hours, colon, minutes = words[-1].rstrip(".").partition(":")
    digits = set(string.digits)
    if not (colon and 1 <= len(hours) <= 2 and len(minutes) == 2 and set(hours + minutes) <= digits):
        return None
    h, m = int(hours), int(minutes)
    return h * 60 + m if h < 24 and m < 60 else None


def show_clock(minutes: int) -> str:
    """``HH:MM`` for minutes after midnight (wrapped into one day)."""
    minutes = minutes % MINUTES_PER_DAY
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def safe_echo(text: str, limit: int = 40) -> str:
    """The agent's reply shortened to ``limit`` printable characters, for quoting it back in feedback."""
    if not isinstance(text, str):
        return ""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")
'''

SEEDS_INIT = '''\
"""Seed environments of the $name domain (trusted, in the designer format)."""
'''

SEED = '''\
"""Add minutes to a 24-hour clock time, one question a round; each round starts from the previous answer."""

from $package.verify import read_clock, safe_echo, show_clock

ENV_SPEC = {
    "name": "$env_name",
    "domain": "$name",
    "description": (
        "A 24-hour clock time and a number of minutes are given; reply with the time that many minutes later as "
        "HH:MM. Each round starts from the previous answer. Two wrong answers end the episode."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "players": 1,
    "difficulty": {
        "rounds": {"min": 2, "max": 5, "default": 3, "description": "questions per episode"},
        "span": {"min": 60, "max": 1440, "default": 300, "description": "the most minutes one question adds"},
    },
    "grounding": (
        "A 24-hour clock counts minutes 0-59 and hours 0-23: adding minutes carries every 60 into the hours, and "
        "the hours wrap to 00 after 23."
    ),
    "tags": ["$name", "clock", "multi-turn"],
}


class ClockShift:
    def __init__(self, rounds=3, span=300):
        self.rounds = rounds
        self.span = span
        self.start = 0
        self.shifts = []
        self.times = []
        self.round = 0
        self.mistakes = 0

    def reset(self, rng, options):
        self.start = rng.randrange(0, 24 * 60)
        self.shifts = [rng.randint(17, self.span) for _ in range(self.rounds)]
        self.times = []
        now = self.start
        for shift in self.shifts:
            now = (now + shift) % (24 * 60)
            self.times.append(now)
        self.round = 0
        self.mistakes = 0
        intro = (f"It is {show_clock(self.start)} on a 24-hour clock. Each round adds some minutes to the time you "
                 "last gave; reply with the new time as \\\\boxed{HH:MM}.\\n")
        return intro + self._question(), {"round": 1}

    def _question(self):
        return f"Round {self.round + 1}: add {self.shifts[self.round]} minutes."

    def step(self, action):
        given = read_clock(action)
        if given is None:
            obs = f"'{safe_echo(action)}' is not a time. Reply as \\\\boxed{{HH:MM}}, e.g. \\\\boxed{{07:05}}.\\n"
            return obs + self._question(), 0.0, False, False, {"format_error": "expected a time as HH:MM",
                                                                 "round": self.round + 1}
        if given != self.times[self.round]:
            self.mistakes = self.mistakes + 1
            if self.mistakes >= 2:
                return "Wrong again; the episode is over.", 0.0, True, False, {"success": False}
            obs = f"{show_clock(given)} is not the right time. Try once more.\\n" + self._question()
            return obs, 0.0, False, False, {"round": self.round + 1}
        self.round = self.round + 1
        reward = 1.0 / self.rounds
        if self.round == self.rounds:
            return "Correct: that is the final time.", reward, True, False, {"success": True}
        return "Correct.\\n" + self._question(), reward, False, False, {"round": self.round + 1}

    def privileged_hint(self):
        shift = self.shifts[min(self.round, self.rounds - 1)]
        previous = self.times[self.round - 1] if self.round > 0 else self.start
        crosses = previous + shift >= 24 * 60
        wrap = "passes midnight, so the hours start again from 00" if crosses else "stays on the same day"
        return (f"Split the minutes into {shift // 60} whole hour(s) and the rest, carry any 60 minutes into the "
                f"hours; this round {wrap}.")

    def reference_action(self):
        return f"\\\\boxed{{{show_clock(self.times[min(self.round, self.rounds - 1)])}}}"
'''

TESTS = '''\
"""The $name plugin checked through SPADE itself: loaded, its seed accepted by the gate, and played to the end."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym

from spade_core.gym_bridge import register_store
from spade_core.plugins import get_plugins
from spade_core.plugins.domains import get_domain
from spade_core.validation import validate_source

SEED = Path(importlib.util.find_spec("$package.seeds.clock_shift").origin)


def test_the_plugin_is_loaded() -> None:
    plugins = get_plugins()
    assert "$name" in {p.name for p in plugins.loaded}
    assert not [f for f in plugins.failures if "$name" in str(f)]
    assert get_domain("$name").answer_kind == "label"


def test_the_seed_passes_the_gate() -> None:
    report = validate_source(SEED.read_text(encoding="utf-8"), file=SEED.name)
    assert report.accepted, f"{report.failed_stage}: {report.message}"


def test_the_reference_solves_every_seed_and_wrong_answers_lose(tmp_path: Path) -> None:
    register_store(tmp_path / "registry.sqlite3")
    env_id = max((i for i in gym.registry if i.startswith("spade/$env_name-v")), key=lambda i: int(i.rsplit("v", 1)[1]))
    env = gym.make(env_id)
    for seed in range(5):
        env.reset(seed=seed)
        done, info = False, {}
        while not done:
            _, _, terminated, truncated, info = env.step(env.unwrapped.reference_action())
            done = terminated or truncated
        assert info["success"] is True
    env.reset(seed=0)
    _, _, terminated, _, info = env.step("half past nine")
    assert "format_error" in info and not terminated
    right = env.unwrapped.reference_action()
    wrong = "\\\\boxed{00:00}" if right != "\\\\boxed{00:00}" else "\\\\boxed{00:01}"
    env.step(wrong)
    _, reward, terminated, _, info = env.step(wrong)
    assert terminated and info["success"] is False and reward == 0.0
    env.close()
'''
