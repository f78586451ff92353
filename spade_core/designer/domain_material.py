"""What a designer prompt takes from a domain: its guidance with the generated API reference of the modules it
imports, the import list, and its worked examples, all read from the domain's ``DomainSpec``."""

from __future__ import annotations

from collections.abc import Mapping

from spade_core.designer.api_reference import api_reference
from spade_core.errors import PluginError
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment
from spade_core.sandbox.allowlist import BASE_ALLOWLIST, merged_allowlist


def domain_modules(spec: DomainSpec, allowlist: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, dict[str, str]]:
    """The stand-in modules the domain's environments import besides the standard ones, with their exposed names;
    raises :class:`PluginError` when the domain names a module no plugin contributes."""
    allowlist = merged_allowlist() if allowlist is None else allowlist
    missing = [m for m in spec.sandbox_modules if m not in allowlist]
    if missing:
        raise PluginError(f"domain {spec.name!r} lists sandbox modules {missing} that no plugin contributes through "
                          "spade_sandbox_modules (is the plugin that provides them installed?)")
    return {module: dict(allowlist[module]) for module in spec.sandbox_modules}


def importable_modules(spec: DomainSpec) -> dict[str, list[str]]:
    """What the prompt says environment code may import: the standard stand-ins and the domain's own modules, each
    with the names the allow-list exposes (other plugins' helper modules are importable but not this domain's
    material)."""
    allowlist = merged_allowlist()
    wanted = {*BASE_ALLOWLIST, *spec.sandbox_modules}
    return {module: sorted(names) for module, names in allowlist.items() if module in wanted}


def domain_guidance(spec: DomainSpec) -> str:
    """The domain's guidance followed by the generated API reference of its sandbox modules (if it has any)."""
    modules = domain_modules(spec)
    if not modules:
        return spec.designer_guidance
    return spec.designer_guidance.rstrip("\n") + "\n\n" + api_reference(modules)


def worked_example_sources(spec: DomainSpec) -> list[str]:
    """The source of each worked example the domain names."""
    return [SeedEnvironment(module).source() for module in spec.worked_examples]
