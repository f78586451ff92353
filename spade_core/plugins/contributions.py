"""Typed contributions that plugins return from their hooks.

Heavy implementations (torch trainers, model loaders) are named by ``"module:attribute"`` strings and imported
only when used, so listing plugins stays fast.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

from spade_core.errors import PluginError


def load_object(ref: str) -> Any:
    """Import ``"package.module:attribute"`` and return the attribute."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise PluginError(f"object reference {ref!r} must look like 'package.module:attribute'")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # report any import failure with the reference
        raise PluginError(f"cannot import {module_name!r} for {ref!r}: {type(exc).__name__}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise PluginError(f"{module_name!r} has no attribute {attr!r} (from {ref!r})") from exc
    return obj


@dataclass(frozen=True)
class ParsedAction:
    """An agent action after a domain's parser: the payload, or why it could not be parsed."""

    value: Any = None
    format_error: str | None = None

    @property
    def ok(self) -> bool:
        return self.format_error is None


AnswerKind = Literal["numeric", "label", "text", "program"]
"""What a domain's final answers are, which decides how validation probes a verifier with variants of a correct
answer (:mod:`spade_core.validation.probes`) and which property stages apply (``Stage.answer_kinds``):

- ``"numeric"``: numbers compared by value. Another spelling of the value (``42.0``, ``2/6``) must be accepted; a
  sign-flipped, bumped or permuted number must be rejected.
- ``"label"``: numbers in an answer are codes or labels (a Mastermind guess ``1 2 3 4``, a board cell), not signed
  quantities: no sign flips, no numeric re-spellings; permuted or bumped ones must still be rejected.
- ``"text"``: anything else (tool calls, words, phrases): near misses by editing the text; numbers in it may be
  sign-flipped.
- ``"program"``: code judged by tests (probed like ``"text"``). One general program may solve every seed: that is
  the point of a fixed specification with hidden tests that vary by seed, not a constant answer, so the
  ``invariance`` stage does not apply.
"""

VALUE_ANSWERS: tuple[AnswerKind, ...] = ("numeric", "label", "text")
"""The answer kinds that are values (an answer for this seed's task), as opposed to programs."""

ANSWER_KINDS: tuple[AnswerKind, ...] = get_args(AnswerKind)


@dataclass(frozen=True)
class DomainSpec:
    """A domain: every fact core needs about it. Core never names a domain; it reads these.

    ``designer_guidance`` is the domain's own prose for the designer prompt; the prompt adds the list of importable
    modules and the API reference of ``sandbox_modules`` (both generated from the allow-list, so the prose need not
    restate them). ``worked_examples`` are seed modules shown to the designer as complete examples.
    ``sandbox_modules`` names stand-in modules (contributed through ``spade_sandbox_modules`` by this or another
    plugin) that the domain's environments import besides the standard stand-ins. ``answer_kind`` says how
    validation probes the verifier (:data:`AnswerKind`). ``topics`` weighs corpus topics when documents are drawn
    for this domain's designer (matched case-insensitively; ``"*"`` weighs every unlisted topic, see
    :func:`spade_core.corpora.topics.topic_weights_for`). ``selfplay_default``: designed for and replayed by a
    self-play run whose config names no domains (keep it for domains whose episodes are short and quick on a CPU).
    """

    name: str
    description: str
    designer_guidance: str = ""
    worked_examples: tuple[str, ...] = ()
    sandbox_modules: tuple[str, ...] = ()
    answer_kind: AnswerKind = "text"
    topics: Mapping[str, float] = field(default_factory=dict)
    selfplay_default: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise PluginError(f"domain name {self.name!r} must be an identifier (letters, digits, _)")
        if self.answer_kind not in ANSWER_KINDS:
            raise PluginError(f"domain {self.name!r}: answer_kind {self.answer_kind!r} is not one of {ANSWER_KINDS}")
        bad = {k: v for k, v in self.topics.items() if not isinstance(k, str) or isinstance(v, bool)
               or not isinstance(v, int | float) or not v >= 0}
        if bad:
            raise PluginError(f"domain {self.name!r}: topic weights must map names to numbers >= 0, got {bad}")


@dataclass(frozen=True)
class ValidationStageSpec:
    """A validation stage a plugin adds to the gate (``spade_validation_stages``).

    ``check``: ``"module:function"``, a function taking the
    :class:`~spade_core.validation.candidate.Candidate` and returning a
    :class:`~spade_core.validation.report.StageResult` (it runs where the other off-driver stages run: in the
    validating process, or in a Ray task). ``budget_s``: its wall-clock limit in seconds; required (a stage without
    one is refused when the stage list loads). ``needs``: stages (built-in or added) whose work it reads; it runs only
    when they passed or were skipped, and after them. ``reads``: the :class:`Candidate` attributes it reads that a
    stage in ``needs`` exports (``manifest``, ``envs``, ``reference_episodes``, ...; what every candidate starts with
    needs no declaring). ``exports``: attributes it sets for later stages. ``rule``: what a designer must satisfy, in
    one line (the designer prompt's "what the gate checks" states it). ``rejects_as``: the record status of its
    failure (``failed``, ``trivial``, ``impossible`` or ``duplicate``). ``domains``: it applies only to these
    domains' candidates (empty: every candidate), and only their prompts state its rule. ``runs_code``: it runs the
    candidate (through ``c.env()``/``c.run``); False for static checks of the source.

    Added stages run after the built-in ones and before the probe-model stage (``calibration``), in an order that
    honours their ``needs``.
    """

    name: str
    check: str
    budget_s: float | None = None
    needs: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    exports: tuple[str, ...] = ()
    rule: str = ""
    rejects_as: str = "failed"
    domains: tuple[str, ...] = ()
    runs_code: bool = True


@dataclass(frozen=True)
class SeedEnvironment:
    """A bundled, trusted environment module in the designer format (``ENV_SPEC`` + one class)."""

    module: str

    def source_path(self) -> Path:
        spec = importlib.util.find_spec(self.module)
        if spec is None or spec.origin is None:
            raise PluginError(f"seed environment module {self.module!r} cannot be found")
        return Path(spec.origin)

    def source(self) -> str:
        return self.source_path().read_text(encoding="utf-8")


@dataclass(frozen=True)
class PackSpec:
    """An environment pack a plugin offers: data (a pack folder, tarball or parquet at ``location``), never code.

    Its environments stay designer-trust: ``spade import``, ``agent.pool_packs`` and ``spade eval --suite pack:NAME``
    re-validate them with the local gate and run them only in the sandbox. ``problem``: why the pack is refused
    (e.g. its distribution carries Python); a refused pack is listed, never read.
    """

    name: str
    location: str
    distribution: str = ""
    version: str = ""
    problem: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    """A tool: an OpenAI-format JSON schema plus the implementation it names."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    implementation: str
    stateful: bool = False

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": dict(self.parameters)},
        }


@dataclass(frozen=True)
class BackendSpec:
    """A named factory, imported lazily (trainer backends, model backends, corpora)."""

    name: str
    factory: str
    description: str = ""

    def load(self) -> Any:
        return load_object(self.factory)


class SharedSettings(Protocol):
    """What a trainer backend's ``shared_settings`` function is given (the self-play ``train`` knobs,
    :class:`spade_core.training.settings.SharedTrainSettings`)."""

    def common(self) -> dict[str, Any]:
        """The learning rate and the seed, as every backend's config names them."""
        ...


@dataclass(frozen=True)
class TrainerBackendSpec(BackendSpec):
    """A trainer backend factory, and optionally ``shared_settings``: ``"module:function"`` of a function that maps
    :class:`spade_core.training.settings.SharedTrainSettings` (the self-play ``train`` knobs) onto the backend's own
    config keys. Without one, the backend gets the learning rate and the seed only. ``settings_class``:
    ``"module:Class"`` of the backend's typed config, whose ``from_mapping`` raises on unknown keys and bad values;
    with one, ``train.backend_options`` is checked when the self-play config loads, before any model does (keep that
    module free of heavy imports)."""

    shared_settings: str | None = None
    settings_class: str | None = None

    def settings_from(self, shared: SharedSettings) -> dict[str, Any]:
        if self.shared_settings is None:
            return shared.common()
        return dict(load_object(self.shared_settings)(shared))

    def check_settings(self, settings: Mapping[str, Any]) -> None:
        """Build the backend's typed config from ``settings`` (raising what it raises); nothing without a class."""
        if self.settings_class is not None:
            load_object(self.settings_class).from_mapping(settings)


class ModelBackendSpec(BackendSpec):
    """A model backend factory."""


class CorpusSpec(BackendSpec):
    """A document corpus factory."""


@dataclass(frozen=True)
class EvalSuiteSpec:
    """An evaluation suite a plugin offers: metadata now, tasks when
    :func:`spade_core.evaluation.suite.load_spec` loads it.

    ``loader`` is ``"package.module:function"``, called as ``function(argument=..., limit=..., **options)`` and
    returning a :class:`spade_core.evaluation.suite.Suite`. ``requires`` lists import names that must be installed (checked before the
    loader is imported); ``install_hint`` is the command that installs them.
    """

    name: str
    description: str
    loader: str
    requires: tuple[str, ...] = ()
    install_hint: str = ""
    argument: str = ""  # what NAME:ARGUMENT means, e.g. "path to a JSONL file"; empty: takes no argument
    argument_required: bool = False
    tags: tuple[str, ...] = ()

    def missing(self) -> list[str]:
        """Required import names that are not installed."""
        out = []
        for name in self.requires:
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                out.append(name)
        return out
