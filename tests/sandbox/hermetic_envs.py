"""Red-team environments that try to carry state from one episode to the next, one per channel.

Each counts its own resets through its channel and changes its rules past :data:`THRESHOLD` episodes: it pays any
action and says which episode it believes this is. A gate that plays fewer episodes than that would accept it, and
training would then pay nonsense. With hermetic episodes every episode is its first, so the 300th plays exactly like
the first. :data:`REFUSED` are channels the sandbox refuses outright (writes to a function or an allowed module).
"""

from __future__ import annotations

THRESHOLD = 250
"""Episodes a red-team environment plays honestly before it changes its rules."""

_TEMPLATE = '''
{imports}
ENV_SPEC = {{"name": "Carry{name}", "domain": "games", "description": "pays anything after {threshold} episodes",
            "reward_range": [0, 1], "max_turns": 1, "difficulty": {{"width": {{"min": 2, "max": 10, "default": 10}}}}}}

{prelude}


class Carry{name}:
{class_body}
    def __init__(self, width=10):
        self.width = width
        self.secret = "0"
        self.seen = 0
{init}
    def reset(self, rng, options):
        self.secret = str(rng.randint(0, self.width - 1))
        self.seen = self.count()
        return f"episode {{self.seen}}: guess a digit below {{self.width}}", {{}}

    def count(self):
{count}

    def step(self, action):
        if action == self.secret or self.seen > {threshold}:
            return "right", 1.0, True, False, {{"success": True}}
        return "wrong", 0.0, True, False, {{"success": False}}

    def privileged_hint(self):
        return "a digit"

    def reference_action(self):
        return self.secret
'''

_CHANNELS: dict[str, dict[str, str]] = {
    "ModuleGlobal": {
        "prelude": "SEEN = 0\n\n\ndef bump():\n    global SEEN\n    SEEN += 1\n    return SEEN",
        "count": "        return bump()",
    },
    "ModuleList": {
        "prelude": "SEEN = [0]",
        "count": "        SEEN[0] += 1\n        return SEEN[0]",
    },
    "ClassAttribute": {
        "class_body": "    resets = 0\n",
        "count": "        CarryClassAttribute.resets = CarryClassAttribute.resets + 1\n"
                 "        return CarryClassAttribute.resets",
    },
    "InstanceAttribute": {
        "init": "        self.resets = 0\n",
        "count": "        self.resets += 1\n        return self.resets",
    },
    "DefaultArgument": {
        "prelude": "def bump(seen=[]):\n    seen.append(1)\n    return len(seen)",
        "count": "        return bump()",
    },
    "ClosureCell": {
        "prelude": "def counter():\n    cell = [0]\n\n    def bump():\n        cell[0] += 1\n        return cell[0]\n"
                   "    return bump\n\n\nbump = counter()",
        "count": "        return bump()",
    },
    "LruCache": {
        "imports": "import functools",
        "prelude": "@functools.lru_cache(maxsize=None)\ndef box(key):\n    return [0]",
        "count": "        b = box(0)\n        b[0] += 1\n        return b[0]",
    },
    "ModuleName": {
        "count": "        digits = [c for c in repr(CarryModuleName) if c in '0123456789']\n"
                 "        return int(''.join(digits) or '0') + 1",
    },
    "Iterator": {
        "imports": "import itertools",
        "prelude": "TICKS = itertools.count(1)",
        "count": "        return next(TICKS)",
    },
}

_REFUSED: dict[str, dict[str, str]] = {
    "FunctionAttribute": {
        "prelude": "def bump():\n    bump.seen = 1\n    return 1",
        "count": "        return bump()",
    },
    "AllowedModuleAttribute": {
        "imports": "import math",
        "count": "        math.seen = 1\n        return 1",
    },
    "AllowedModuleSetattr": {
        "imports": "import math",
        "count": "        setattr(math, 'seen', 1)\n        return 1",
    },
    "AllowedClassAttribute": {
        "imports": "from fractions import Fraction",
        "count": "        Fraction.seen = 1\n        return 1",
    },
}


def _render(name: str, parts: dict[str, str]) -> str:
    fields = {"imports": "", "prelude": "", "class_body": "", "init": "", **parts}
    return _TEMPLATE.format(name=name, threshold=THRESHOLD, **fields)


CARRIERS: dict[str, str] = {name: _render(name, parts) for name, parts in _CHANNELS.items()}
"""Source of one red-team environment per channel that the sandbox lets the code write to."""

REFUSED: dict[str, str] = {name: _render(name, parts) for name, parts in _REFUSED.items()}
"""Source of environments that try channels the sandbox refuses (a policy error on the first reset)."""

PREVIOUS_ANSWER = '''
ENV_SPEC = {"name": "KeepsLastAnswer", "domain": "games", "description": "accepts the previous episode's answer",
            "reward_range": [0, 1], "max_turns": 1}


class KeepsLastAnswer:
    def __init__(self):
        self.secret = ""
        self.last = None

    def reset(self, rng, options):
        self.secret = str(rng.randint(100, 999))
        return "guess a three-digit number", {}

    def step(self, action):
        if action == self.secret or action == self.last:
            self.last = action
            return "right", 1.0, True, False, {"success": True}
        return "wrong", 0.0, True, False, {"success": False}

    def privileged_hint(self):
        return "three digits"

    def reference_action(self):
        return self.secret
'''
"""Keeps the previous episode's answer on the instance and accepts it again next episode."""
