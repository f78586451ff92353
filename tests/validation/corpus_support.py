"""Helpers of the corpus tests: the environments whose flaw was state carried from one episode to the next."""

from __future__ import annotations

from pathlib import Path

CARRIED = sorted((Path(__file__).parent / "carried_state").glob("*.py"))
"""Every episode now starts from a fresh module and instance, so these are judged in ``carried_state/``
(``test_carried_state.py``) while still counted in the class they came from (their ``# class:`` line)."""


def carried_members(cls: str) -> list[Path]:
    """The carried-state environments that came from class ``cls``."""
    return [p for p in CARRIED if p.read_text().startswith(f"# class: {cls} ")]
