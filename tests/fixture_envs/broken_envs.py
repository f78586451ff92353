"""Inner environments that break the contract in one specific way each (for SpadeEnv's boundary checks)."""

from __future__ import annotations


class Base:
    def __init__(self, **knobs):
        self.knobs = knobs

    def reset(self, rng, options):
        return "start", {}

    def step(self, action):
        return "ok", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"


class ObsNotStr(Base):
    def step(self, action):
        return 42, 0.0, False, False, {}


class RewardOutOfRange(Base):
    def step(self, action):
        return "ok", 5.0, True, False, {}


class RewardNaN(Base):
    def step(self, action):
        return "ok", float("nan"), True, False, {}


class FlagNotBool(Base):
    def step(self, action):
        return "ok", 0.0, 1, False, {}


class InfoNotJson(Base):
    def step(self, action):
        return "ok", 0.0, False, False, {"thing": object()}


class WrongArity(Base):
    def step(self, action):
        return "ok", 0.0, False


class ObsTooLong(Base):
    def step(self, action):
        return "x" * 100_000, 0.0, False, False, {}


class ResetNotTuple(Base):
    def reset(self, rng, options):
        return "start"


class SingleTurnNeverEnds(Base):
    pass


class NoPlayerId(Base):
    pass
