"""The loaded domains by name: core reads every domain fact (answer kind, topic weights, guidance, default set) from
the :class:`~spade_core.plugins.contributions.DomainSpec` a plugin contributes, never from a name of its own."""

from __future__ import annotations

from spade_core.errors import PluginError
from spade_core.plugins.contributions import AnswerKind, DomainSpec
from spade_core.plugins.manager import get_plugins

UNKNOWN_DOMAIN_ANSWERS: AnswerKind = "text"
"""The answer kind assumed for a domain no loaded plugin declares (a designer may write any ``domain`` string)."""


def loaded_domains() -> dict[str, DomainSpec]:
    """Every domain the loaded plugins contribute, by name (the first plugin to claim a name keeps it)."""
    out: dict[str, DomainSpec] = {}
    for spec in get_plugins().collect_flat("spade_domains"):
        if isinstance(spec, DomainSpec):
            out.setdefault(spec.name, spec)
    return out


def get_domain(name: str) -> DomainSpec:
    """The loaded domain ``name``; raises :class:`PluginError` naming the loaded ones when there is none."""
    domains = loaded_domains()
    if name not in domains:
        raise PluginError(f"unknown domain {name!r}; loaded domains: {', '.join(sorted(domains)) or 'none'} "
                          "(a domain comes from a plugin's spade_domains hook; `spade plugins` lists them)")
    return domains[name]


def answer_kind(name: str) -> AnswerKind:
    """How validation probes answers in domain ``name`` (:data:`UNKNOWN_DOMAIN_ANSWERS` for an unknown one)."""
    spec = loaded_domains().get(name)
    return spec.answer_kind if spec is not None else UNKNOWN_DOMAIN_ANSWERS


def default_domains() -> list[str]:
    """The domains a self-play run uses when its config names none: those marked ``selfplay_default``."""
    return sorted(name for name, spec in loaded_domains().items() if spec.selfplay_default)
