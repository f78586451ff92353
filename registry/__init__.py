"""The SPADE registry store: durable, content-hashed environment records in SQLite.

Imported as ``spade_registry`` (the folder ``registry/`` is mapped to that name so nothing generic lands in
site-packages).
"""

import logging

# The registry is the lowest layer: it imports nothing from spade_core (spade_core builds on it).
from spade_registry.hashing import content_hash
from spade_registry.ids import ENV_NAMESPACE, format_env_id, parse_env_id
from spade_registry.paths import STORE_ENV_VAR, default_store_path
from spade_registry.records import Record, Status
from spade_registry.store import RegistryStore

logging.getLogger(__name__).addHandler(logging.NullHandler())  # this package's logger: silent until an app configures logging

__all__ = [
    "ENV_NAMESPACE", "STORE_ENV_VAR", "Record", "RegistryStore", "Status", "content_hash", "default_store_path",
    "format_env_id", "parse_env_id",
]
