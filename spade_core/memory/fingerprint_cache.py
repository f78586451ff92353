"""Fingerprints of installed seed code, kept on disk so that every new registry store does not replay every seed.

A bundled seed is installed, reviewed code imported from its module: the same source always plays the same way, so
its fingerprint is a function of the source and :data:`~spade_core.memory.fingerprint.FINGERPRINT_MODEL`. Each is
one ``.npy`` file named by the SHA-256 of both, in ``$SPADE_FINGERPRINT_CACHE`` or the user cache folder. A file
that is missing, unreadable or not a well-formed fingerprint (shape, dtype, finite unit-length parts) is a miss and
the seed is played again; writes are atomic. Designer code never goes through this cache: its fingerprint comes from
its validation and lives in the store.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from spade_core.cache_root import cache_dir, keep
from spade_core.memory.fingerprint import DIM, FINGERPRINT_MODEL, Fingerprint

CACHE_ENV = "SPADE_FINGERPRINT_CACHE"


def fingerprint_cache_dir() -> Path:
    """``$SPADE_FINGERPRINT_CACHE``, else ``<user cache folder>/spade/fingerprints``."""
    return cache_dir("fingerprints", CACHE_ENV)


def _path(source: str) -> Path:
    key = hashlib.sha256(f"{FINGERPRINT_MODEL}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
    return fingerprint_cache_dir() / f"{key}.npy"


def _as_fingerprint(row: object) -> Fingerprint | None:
    """``row`` as a fingerprint if it is one: float32, DIM finite values, each part unit length or empty."""
    if not isinstance(row, np.ndarray) or row.dtype != np.float32 or row.shape != (DIM,) or not np.isfinite(row).all():
        return None
    fp = Fingerprint.from_vector(row)
    norms = [float(np.linalg.norm(part)) for part in (fp.text, fp.dynamics, fp.shape)]
    return fp if all(n == 0.0 or abs(n - 1.0) < 1e-3 for n in norms) else None


def cached_fingerprint(source: str) -> Fingerprint | None:
    """The cached fingerprint of installed ``source``, or ``None`` (not cached, or the file is not a fingerprint)."""
    try:
        row = np.load(_path(source), allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    return _as_fingerprint(row)


def remember_fingerprint(source: str, fp: Fingerprint) -> None:
    """Cache the fingerprint of installed ``source``; a cache folder that cannot be written only costs speed."""
    keep(_path(source), lambda handle: np.save(handle, fp.vector(), allow_pickle=False))
