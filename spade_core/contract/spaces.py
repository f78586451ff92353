"""Text spaces for SPADE observations and actions.

Gymnasium's :class:`~gymnasium.spaces.Text` only admits a fixed charset (alphanumeric by default), so
``check_env`` fails on the first space or ``?`` in an observation. :class:`FreeText` admits any string up to a
maximum length. It also works with ``AsyncVectorEnv(shared_memory=True)``: the stock Text handlers read the
shared buffer once, so every later observation comes back stale (Gymnasium issue #1164); ours read it live.
"""

from __future__ import annotations

import multiprocessing as mp
import string
from collections.abc import Sequence
from ctypes import c_int32
from multiprocessing.sharedctypes import SynchronizedArray
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

_SAMPLE_ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \n"


class FreeText(Text):
    """Any ``str`` of at most ``max_length`` characters (any Unicode code point, empty allowed)."""

    def __init__(self, max_length: int, *, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length, min_length=0, charset=_SAMPLE_ALPHABET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random printable string; length is skewed short so samples look like (bad) actions."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(min(self.max_length, self.np_random.geometric(1 / 24)))
        chars = self.np_random.choice(len(_SAMPLE_ALPHABET), size=length)
        return "".join(_SAMPLE_ALPHABET[i] for i in chars)

    def __repr__(self) -> str:
        return f"FreeText(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FreeText) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash(("FreeText", self.max_length))


class SharedTextBatch(Sequence[str]):
    """A live view of ``n`` strings held in shared memory as UTF-32 code points.

    ``AsyncVectorEnv`` reads its observation buffer once and then returns ``deepcopy`` of what it read; a
    deep copy of this view is a plain tuple of the *current* strings, so every step returns fresh text.
    """

    def __init__(self, buffer: SynchronizedArray, n: int, max_length: int) -> None:
        self._buffer = buffer
        self._n = n
        self._stride = max_length + 1

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: int | slice) -> Any:  # type: ignore[override]
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._n)))
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        data = np.frombuffer(self._buffer.get_obj(), dtype=np.int32)
        row = data[index * self._stride : (index + 1) * self._stride]
        length = int(row[0])
        return row[1 : 1 + length].astype("<u4").tobytes().decode("utf-32-le")

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return f"SharedTextBatch({tuple(self)!r})"


@create_shared_memory.register(FreeText)
def _create_free_text_shared_memory(
    space: FreeText, n: int = 1, ctx: ModuleType = mp
) -> SynchronizedArray[c_int32]:
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@read_from_shared_memory.register(FreeText)
def _read_free_text_from_shared_memory(
    space: FreeText, shared_memory: SynchronizedArray, n: int = 1
) -> SharedTextBatch:
    return SharedTextBatch(shared_memory, n, space.max_length)


@write_to_shared_memory.register(FreeText)
def _write_free_text_to_shared_memory(
    space: FreeText, index: int, value: str, shared_memory: SynchronizedArray
) -> None:
    stride = space.max_length + 1
    codes = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int32)
    data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    row = data[index * stride : (index + 1) * stride]
    row[0] = len(codes)
    row[1 : 1 + len(codes)] = codes
