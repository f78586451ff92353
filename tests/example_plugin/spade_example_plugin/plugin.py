"""Registers the CoinFlipStreak environment through SPADE's ``spade_seed_environments`` hook."""

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import SeedEnvironment


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment("spade_example_plugin.coin_streak")]
