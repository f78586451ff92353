"""Where SPADE keeps what it can recompute (converted models, fingerprints of installed code): one folder per kind
under the user cache folder, each overridable by its own environment variable."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_dir(kind: str, env_var: str) -> Path:
    """``$<env_var>`` if set, else ``<user cache folder>/spade/<kind>``."""
    value = os.environ.get(env_var)
    if value:
        return Path(value)
    return Path(platformdirs.user_cache_dir("spade")) / kind
