"""Which registry environments an adapter serves: explicit ids, or every accepted record of a domain / with a tag."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import gymnasium as gym

from spade_core.adapters.session import SessionError
from spade_core.gym_bridge.stores import open_store
from spade_registry.records import Status


@dataclass(frozen=True)
class EnvSelection:
    """``ids`` (``spade/<Name>-v<N>``), or a filter on the registry store: ``domain`` and/or ``tags`` (all must match).
    An empty selection is an error, never "every environment"."""

    ids: tuple[str, ...] = ()
    domain: str | None = None
    tags: tuple[str, ...] = ()
    store: str | None = None

    def resolve(self) -> list[str]:
        """The selected ids, in a stable order; raises :class:`SessionError` naming what matched nothing."""
        if self.ids:
            unknown = [env_id for env_id in self.ids if env_id not in gym.registry]
            if unknown:
                raise SessionError(f"unknown environment id(s) {unknown}: `spade list` shows the registered ids")
            return list(dict.fromkeys(self.ids))
        if self.domain is None and not self.tags:
            raise SessionError("select environments by ids, domain or tags (an empty selection serves nothing)")
        records = open_store(self.store).query(domain=self.domain, status=Status.ACCEPTED)
        wanted = set(self.tags)
        ids = sorted(r.env_id for r in records if r.env_id and wanted <= set(r.tags))
        if not ids:
            raise SessionError(f"no accepted environment matches domain={self.domain!r} tags={sorted(wanted)}: "
                               "`spade list --domain ...` shows what is there")
        return ids


def selection(ids: Sequence[str] | str | None = None, *, domain: str | None = None,
              tags: Sequence[str] = (), store: str | None = None) -> EnvSelection:
    """An :class:`EnvSelection` from loose arguments (one id or many)."""
    chosen = (ids,) if isinstance(ids, str) else tuple(ids or ())
    return EnvSelection(ids=chosen, domain=domain, tags=tuple(tags), store=store)
