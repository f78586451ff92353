"""The per-episode random source handed to environment code.

Environments never touch the global ``random`` or ``numpy.random`` state (seeding globals breaks parallel
rollouts); ``reset`` receives an :class:`EpisodeRandom` built from the episode seed instead.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class EpisodeRandom:
    """A seeded random source exposing only sampling methods (no state export, no reseeding)."""

    __slots__ = ("_r",)

    def __init__(self, seed: int) -> None:
        self._r = random.Random(seed)

    def random(self) -> float:
        return self._r.random()

    def uniform(self, a: float, b: float) -> float:
        return self._r.uniform(a, b)

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        return self._r.gauss(mu, sigma)

    def randint(self, a: int, b: int) -> int:
        return self._r.randint(a, b)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return self._r.randrange(start, stop, step)

    def choice(self, seq: Sequence[T]) -> T:
        return self._r.choice(seq)

    def choices(self, population: Sequence[T], weights: Sequence[float] | None = None, k: int = 1) -> list[T]:
        return self._r.choices(population, weights=weights, k=k)

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        return self._r.sample(list(population), k)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self._r.shuffle(items)
