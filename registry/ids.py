"""The one definition of SPADE environment ids: ``<namespace>/<Name>-v<N>``.

Two namespaces exist. ``spade`` holds what this store made or was shipped: plugin seeds and accepted designer
environments. ``spade-pack`` holds environments imported from packs (``spade import``); nothing else is ever
stored there, so a pack can never take a name (or a version of one) that a plugin or the designer will need.
Both are Gymnasium namespaces (``[\\w:-]+``), so ``gymnasium.make("spade-pack/<Name>-v<N>")`` works as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spade_registry.errors import InvalidIdError
from spade_registry.manifest import NAME_PATTERN

ENV_NAMESPACE = "spade"
PACK_NAMESPACE = "spade-pack"
NAMESPACES = (ENV_NAMESPACE, PACK_NAMESPACE)
"""Every namespace a stored environment id may carry (an allow-list: any other namespace is not a SPADE id)."""
MAX_VERSION = 999_999_999
"""The largest ``-v<N>`` an id may carry (nine digits): far beyond any real history, and far inside SQLite's 64-bit
integers, so the next version of any name always fits the store."""
ID_PATTERN = re.compile(
    r"(?:(?P<ns>[A-Za-z0-9_-]{1,64})/)?(?P<name>[A-Za-z][A-Za-z0-9_.]{0,79})-v(?P<version>0|[1-9][0-9]{0,8})\Z",
    re.ASCII)
"""``[<ns>/]<Name>-v<N>``, ASCII only (``\\d`` would take other scripts' digits), ``\\Z``-anchored; use ``fullmatch``."""


@dataclass(frozen=True)
class EnvId:
    """A parsed environment id: ``<namespace>/<name>-v<version>``."""

    namespace: str
    name: str
    version: int

    def __str__(self) -> str:
        return format_env_id(self.name, self.version, self.namespace)


def format_env_id(name: str, version: int, namespace: str = ENV_NAMESPACE) -> str:
    """``<namespace>/<name>-v<version>``; validates the name against the manifest rule and the namespace against
    :data:`NAMESPACES`."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise InvalidIdError(f"environment name {name!r:.100} is invalid: use letters, digits, '_' or '.', starting "
                             "with a letter (at most 80 characters)")
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= MAX_VERSION:
        raise InvalidIdError(f"version must be an integer in [0, {MAX_VERSION}], got {version!r:.40}")
    if namespace not in NAMESPACES:
        raise InvalidIdError(f"namespace {namespace!r:.100} is not one of {', '.join(NAMESPACES)}")
    return f"{namespace}/{name}-v{version}"


def parse_id(env_id: str) -> EnvId:
    """Split ``[spade_core:][<namespace>/]<Name>-v<N>`` (namespace ``spade`` when left out) into an :class:`EnvId`."""
    text = env_id.split(":", 1)[1] if ":" in env_id else env_id
    match = ID_PATTERN.fullmatch(text)
    if match is None or match.group("ns") not in (None, *NAMESPACES):
        raise InvalidIdError(
            f"{env_id!r:.200} is not a SPADE environment id; expected 'spade/<Name>-v<N>' (e.g. 'spade/TicTacToe-v0') "
            f"or, for an imported environment, '{PACK_NAMESPACE}/<Name>-v<N>'"
        )
    return EnvId(match.group("ns") or ENV_NAMESPACE, match.group("name"), int(match.group("version")))


def parse_env_id(env_id: str) -> tuple[str, int]:
    """Split ``[spade_core:][spade/]<Name>-v<N>`` into ``(name, version)``: the ``spade`` namespace only (the ids a
    pack file carries); :func:`parse_id` reads every namespace."""
    parsed = parse_id(env_id)
    if parsed.namespace != ENV_NAMESPACE:
        raise InvalidIdError(f"{env_id!r:.200} is not in the {ENV_NAMESPACE!r} namespace; expected "
                             "'spade/<Name>-v<N>' (e.g. 'spade/TicTacToe-v0')")
    return parsed.name, parsed.version


def name_key(name: str) -> str:
    """The form in which two environment names count as the same name: case, ``_`` and ``.`` ignored.

    ``Mastermind``, ``mastermind``, ``Master_Mind`` and ``MASTER.MIND`` share one key, so a designer environment
    cannot take a name an operator would read as a bundled environment's.
    """
    return name.casefold().replace("_", "").replace(".", "")
