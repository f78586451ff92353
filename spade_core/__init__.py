"""SPADE: self-play reinforcement learning in adaptive, synthetic, executable environments.

Importing this package registers every accepted environment of the registry store with Gymnasium, so any RL
code can ``gymnasium.make("spade/<Name>-v<N>")`` (or ``"spade_core:spade/<Name>-v<N>"`` with no prior import).
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version

from spade_core.contract import EnvManifest, EpisodeRandom, FreeText, SpadeEnv
from spade_core.errors import SpadeError
from spade_core.gym_bridge import register_store
from spade_core.gym_bridge.register import register_on_import
from spade_core.plugins import hookimpl
from spade_core.plugins.hookspecs import DISTRIBUTION

logging.getLogger(__name__).addHandler(logging.NullHandler())  # this package's logger: silent until an app configures logging

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"


def refresh() -> list[str]:
    """Register environments accepted since import (in this or another process); returns the new ids."""
    return register_store()


register_on_import()

__all__ = [
    "EnvManifest", "EpisodeRandom", "FreeText", "SpadeEnv", "SpadeError", "__version__", "hookimpl", "refresh",
    "register_store",
]
