"""The one definition of SPADE environment ids: ``spade/<Name>-v<N>``."""

from __future__ import annotations

import re

from spade_registry.errors import InvalidIdError
from spade_registry.manifest import NAME_PATTERN

ENV_NAMESPACE = "spade"
MAX_VERSION = 999_999_999
"""The largest ``-v<N>`` an id may carry (nine digits): far beyond any real history, and far inside SQLite's 64-bit
integers, so the next version of any name always fits the store."""
ID_PATTERN = re.compile(
    r"(?:(?P<ns>[A-Za-z0-9_-]{1,64})/)?(?P<name>[A-Za-z][A-Za-z0-9_.]{0,79})-v(?P<version>0|[1-9][0-9]{0,8})\Z",
    re.ASCII)
"""``[<ns>/]<Name>-v<N>``, ASCII only (``\\d`` would take other scripts' digits), ``\\Z``-anchored; use ``fullmatch``."""


def format_env_id(name: str, version: int) -> str:
    """``spade/<name>-v<version>``; validates the name against the manifest rule."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise InvalidIdError(f"environment name {name!r:.100} is invalid: use letters, digits, '_' or '.', starting "
                             "with a letter (at most 80 characters)")
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= MAX_VERSION:
        raise InvalidIdError(f"version must be an integer in [0, {MAX_VERSION}], got {version!r:.40}")
    return f"{ENV_NAMESPACE}/{name}-v{version}"


def parse_env_id(env_id: str) -> tuple[str, int]:
    """Split ``[spade_core:][spade/]<Name>-v<N>`` into ``(name, version)``."""
    text = env_id.split(":", 1)[1] if ":" in env_id else env_id
    match = ID_PATTERN.fullmatch(text)
    if match is None or match.group("ns") not in (None, ENV_NAMESPACE):
        raise InvalidIdError(
            f"{env_id!r:.200} is not a SPADE environment id; expected 'spade/<Name>-v<N>' (e.g. 'spade/TicTacToe-v0')"
        )
    return match.group("name"), int(match.group("version"))


def name_key(name: str) -> str:
    """The form in which two environment names count as the same name: case, ``_`` and ``.`` ignored.

    ``Mastermind``, ``mastermind``, ``Master_Mind`` and ``MASTER.MIND`` share one key, so a designer environment
    cannot take a name an operator would read as a bundled environment's.
    """
    return name.casefold().replace("_", "").replace(".", "")
