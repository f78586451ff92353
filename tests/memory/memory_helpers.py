"""Helpers for the memory tests: environment modules with a recognisable theme."""

from __future__ import annotations


def env_source(name: str, doc: str, attrs: list[str]) -> tuple[dict, str]:
    """A small environment module (manifest + code) whose docstring and attributes carry its theme."""
    lines = [f"class {name}:", f'    """{doc}"""', "", "    def reset(self, rng, options):"]
    lines += [f"        self.{a} = {i}" for i, a in enumerate(attrs)]
    lines += ["        return 'start', {}", "", "    def step(self, action):",
              "        return 'obs', 0.0, True, False, {}"]
    manifest = {"name": name, "domain": "games", "description": doc, "max_turns": 4, "reward_range": [0.0, 1.0]}
    return manifest, "\n".join(lines) + "\n"
