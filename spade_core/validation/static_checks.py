"""The stages that read the module without playing it much: structure, exact duplicate, static policy,
instantiate and contract (docs/design.md §3, stages 1-5)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from spade_core.contract.inner import REQUIRED_METHODS
from spade_core.errors import (
    ContractError,
    ManifestError,
    SandboxError,
)
from spade_core.validation.episodes import (
    EnvFactory,
)
from spade_core.validation.report import StageResult
from spade_registry.manifest import EnvManifest
from spade_registry.syntax import parse_source

if TYPE_CHECKING:
    pass

from spade_core.validation.candidate import Candidate
from spade_core.validation.report import describe_error, fail, ok, skipped


def env_spec_assignments(tree: ast.Module) -> list[ast.Assign]:
    """The module's top-level ``ENV_SPEC = ...`` statements."""
    return [n for n in tree.body if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in n.targets)]


# -- 1. structure ---------------------------------------------------------------------------------------------
def check_structure(c: Candidate) -> StageResult:
    stage = "structure"
    if len(c.source) > c.config.max_source_chars:
        return fail(stage, f"the module is {len(c.source)} characters; the limit is {c.config.max_source_chars}",
                    ["generated text that is not one module"], ["write one compact module"])
    try:
        tree = parse_source(c.source)
    except SyntaxError as exc:
        return fail(stage, f"line {exc.lineno}: SyntaxError: {exc.msg}", ["truncated or malformed code"],
                    ["return one complete Python module"], line=exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        return fail(stage, f"the code cannot be parsed: {type(exc).__name__}: {exc}", ["malformed input"],
                    ["return one complete Python module"])
    c.tree = tree
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    env_classes = [cls for cls in classes if {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
                   >= set(REQUIRED_METHODS)]
    if len(env_classes) > 1:
        names = ", ".join(cls.name for cls in env_classes)
        return fail(stage, f"found {len(env_classes)} environment classes ({names})",
                    ["two environments in one module"], ["keep exactly one class with " + ", ".join(REQUIRED_METHODS)])
    if not env_classes:
        partial = [
            (cls.name, sorted(set(REQUIRED_METHODS) - {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}))
            for cls in classes
        ]
        detail = "; ".join(f"class {n} lacks {', '.join(m)}" for n, m in partial) or "no class at all"
        return fail(stage, f"no environment class: {detail}", ["a method is missing or misnamed"],
                    ["define one plain class with " + ", ".join(REQUIRED_METHODS)])
    specs = env_spec_assignments(tree)
    if len(specs) != 1:
        return fail(stage, f"expected one top-level ENV_SPEC assignment, found {len(specs)}",
                    ["the manifest is missing or assigned twice"], ["assign ENV_SPEC = {...} once at module level"])
    try:
        raw = ast.literal_eval(specs[0].value)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        return fail(stage, f"line {specs[0].lineno}: ENV_SPEC is not a literal dict",
                    ["the manifest is computed (calls, names, f-strings)"], ["write ENV_SPEC as a plain dict literal"])
    try:
        c.manifest = EnvManifest.from_dict(raw)
    except ManifestError as exc:
        return fail(stage, str(exc), ["a manifest field is missing or invalid"], [f"fix field {exc.field!r}"],
                    field=exc.field)
    return ok(stage, f"one environment class ({env_classes[0].name}) and a valid manifest ({c.manifest.name})")


# -- 2. exact duplicate -----------------------------------------------------------------------------------------
def check_exact_duplicate(c: Candidate) -> StageResult:
    stage = "exact_duplicate"
    if c.store is None:
        return skipped(stage, "no registry store given")
    if c.installed_seed is not None:  # its name and its stored record are its own, not another environment's
        return ok(stage, f"the installed seed {c.installed_seed} itself (its name and stored record are its own)")
    reserved = c.store.reserved_name_problem(c.manifest.name) if c.manifest is not None else None
    if reserved:  # a designer environment never takes a bundled one's name (nor its unversioned id)
        return fail(stage, reserved, ["ENV_SPEC['name'] repeats a bundled environment's name"],
                    ["choose a new name that describes this environment"])
    existing = c.store.find_by_hash(c.content_hash)
    if existing is None:
        return ok(stage, "no stored environment has this code")
    ref = existing.env_id or f"#{existing.rid}"
    c.duplicate_of = ref
    return fail(stage, f"identical (normalised AST) to stored environment {ref} ({existing.status_label})",
                ["the same environment was written before"], ["write a different environment"], duplicate_of=ref)


# -- 3. static policy -------------------------------------------------------------------------------------------
def check_policy(c: Candidate) -> StageResult:
    from spade_core.sandbox.policy import policy_problems

    problems = policy_problems(c.source, c.allowed_modules)
    if problems:
        return fail("policy", "; ".join(problems[:5]), ["a forbidden import, builtin, or dunder/private access"],
                    ["use only the allowed modules: " + ", ".join(sorted(c.allowed_modules or {}))], problems=problems)
    return ok("policy", "the static policy accepts the module")


# -- 4. instantiate ---------------------------------------------------------------------------------------------
def check_instantiate(c: Candidate) -> StageResult:
    assert c.manifest is not None
    env_id = f"candidate:{c.manifest.name}"
    c.envs = EnvFactory(c.manifest, c.handle_factory_for(c.source, env_id), env_id)
    handle = None
    try:
        handle = c.envs.handles(c.manifest.knob_defaults())
        handle.reset(c.config.seeds[0], {})
    except SandboxError as err:
        observed, causes, fix = describe_error(err)
        return fail("instantiate", f"creating the environment and calling reset failed: {observed}", causes, fix)
    finally:
        if handle is not None:
            handle.close()
    return ok("instantiate", "created in the sandbox; reset returned")


# -- 5. contract ------------------------------------------------------------------------------------------------
def check_contract(c: Candidate) -> StageResult:
    env = c.env()
    try:
        obs, info = env.reset(seed=c.config.seeds[0])
        hint = env.privileged_hint()
        action = env.reference_action()
        _, _, _, _, info = env.step("")
        if info.get("sandbox_error") is not None:
            raise info["sandbox_error"]
        env.reset(seed=c.config.seeds[0])
        _, _, _, _, info = env.step(action)
        if info.get("sandbox_error") is not None:
            raise info["sandbox_error"]
    except (SandboxError, ContractError) as err:
        c.shared_env = None
        observed, causes, fix = describe_error(err)
        return fail("contract", observed, causes, fix)
    return ok("contract", "reset, step (including an empty action), hint and reference return well-typed values",
              hint_chars=len(hint), obs_chars=len(obs))
