"""SPADE's extension points: every hook a plugin may implement.

Plugins are found through the ``spade`` entry-point group (bundled ones too, exactly as a third-party plugin
would be). Each hook returns a list (or mapping) of contributions; a plugin whose hook raises is reported by
name and the others still load. Implement a hook with ``@spade_core.hookimpl``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

PROJECT_NAME = "spade"
ENTRY_POINT_GROUP = "spade"
DISTRIBUTION = "spade-rl"
"""SPADE's own distribution: its plugins' seeds are gated by its test suite (:mod:`spade_core.gym_bridge.seeds`)."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

if TYPE_CHECKING:
    from spade_core.plugins.contributions import (
        CorpusSpec,
        DomainSpec,
        EvalSuiteSpec,
        ModelBackendSpec,
        PackSpec,
        SeedEnvironment,
        ToolSpec,
        TrainerBackendSpec,
        ValidationStageSpec,
    )


@hookspec
def spade_domains() -> list[DomainSpec]:
    """Domains this plugin adds: designer guidance, action parsing and verification helpers."""


@hookspec
def spade_tools() -> list[ToolSpec]:
    """Tools (JSON schema + implementation) that tool-use environments may call by name."""


@hookspec
def spade_seed_environments() -> list[SeedEnvironment]:
    """Trusted, bundled environments in the designer format; synced into the registry store as accepted."""


@hookspec
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    """Stand-in modules that sandboxed environment code may import.

    Maps an importable stand-in name to ``{exposed attribute: "real.module:attribute"}``. Only the listed
    attributes are reachable; the real module never is (a real ``re`` reaches ``eval`` through ``re.enum``).
    """


@hookspec
def spade_trainer_backends() -> list[TrainerBackendSpec]:
    """Trainer backends that run the self-play update (reference PyTorch, TRL, ...)."""


@hookspec
def spade_model_backends() -> list[ModelBackendSpec]:
    """Model backends that generate text for the designer and agent roles (hf, openai, vllm, ...)."""


@hookspec
def spade_corpora() -> list[CorpusSpec]:
    """Document corpora that ground the designer."""


@hookspec
def spade_eval_suites() -> list[EvalSuiteSpec]:
    """Evaluation suites (held-out benchmarks as SPADE environments) for ``spade eval``."""


@hookspec
def spade_packs() -> list[PackSpec]:
    """Environment packs (data, never code) this plugin offers by name; their environments stay untrusted: they are
    re-validated on import and run only in the sandbox. The core implements it for pip-installed packs, which
    declare their data folder in the ``spade.packs`` entry-point group and carry no Python."""


@hookspec
def spade_validation_stages() -> list[ValidationStageSpec]:
    """Stages this plugin adds to the validation gate, each with its check, budget, needs, what it reads and exports,
    and the rule it enforces (:class:`~spade_core.plugins.contributions.ValidationStageSpec`). The stage list is
    checked when it loads: a stage without a budget, with an unknown need, or reading what no stage it needs exports
    stops validation with an error naming the plugin and the stage."""


def all_hook_names() -> list[str]:
    """Names of every hook above, in declaration order."""
    return [name for name, value in globals().items() if name.startswith("spade_") and callable(value)]


__all__: list[Any] = ["hookimpl", "hookspec", "PROJECT_NAME", "ENTRY_POINT_GROUP", "DISTRIBUTION", "all_hook_names"]
