"""The environment contract: manifest schema, text spaces, per-episode RNG, inner handles and ``SpadeEnv``."""

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import InnerEnvHandle, LocalInnerEnv, find_env_class, load_trusted_module
from spade_core.contract.rng import EpisodeRandom
from spade_core.contract.spaces import FreeText
from spade_registry.manifest import DifficultyKnob, EnvManifest

__all__ = [
    "DifficultyKnob", "EnvManifest", "EpisodeRandom", "FreeText", "InnerEnvHandle", "LocalInnerEnv", "SpadeEnv",
    "find_env_class", "load_trusted_module",
]
