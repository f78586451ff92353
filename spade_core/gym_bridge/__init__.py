"""The bridge between the registry store and Gymnasium's registry."""

from spade_core.gym_bridge.make import env_from_record, make_env
from spade_core.gym_bridge.register import register_store
from spade_core.gym_bridge.seeds import sync_seed_environments
from spade_core.gym_bridge.stores import close_stores, open_store

__all__ = ["close_stores", "env_from_record", "make_env", "open_store", "register_store", "sync_seed_environments"]
