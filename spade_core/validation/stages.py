"""The pipeline's checks, cheapest first (DESIGN.md §5). Each returns a :class:`StageResult` and never raises.

A stage reads and writes the shared :class:`Candidate` (parsed manifest, instance factory, episodes played so far)
so later stages reuse earlier work instead of replaying it.
"""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spade_core.contract.inner import REQUIRED_METHODS, HandleFactory
from spade_core.contract.manifest import EnvManifest
from spade_core.errors import (
    ContractError,
    EnvCodeError,
    ManifestError,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
)
from spade_core.validation.config import ValidationConfig
from spade_core.validation.episodes import (
    EnvFactory,
    Episode,
    Policy,
    constant_policy,
    hint_policy,
    mutations,
    play,
    random_text_policy,
    reference_policy,
    repeat_first_policy,
)
from spade_core.validation.report import StageResult


@dataclass
class Candidate:
    """Everything the stages know about one candidate so far."""

    source: str
    file: str
    config: ValidationConfig
    handle_factory_for: Callable[[str, str], HandleFactory]
    allowed_modules: dict[str, list[str]] | None = None
    store: Any = None
    document: str | None = None
    probe: Policy | None = None
    novelty_check: Callable[[Candidate], tuple[float, str] | None] | None = None
    content_hash: str = ""
    tree: ast.Module | None = None
    manifest: EnvManifest | None = None
    envs: EnvFactory | None = None
    reference_episodes: list[Episode] = field(default_factory=list)
    all_episodes: list[Episode] = field(default_factory=list)
    outcome_status: str | None = None
    duplicate_of: str | None = None
    shared_env: Any = None

    def new_env(self):
        assert self.envs is not None
        return self.envs()

    def env(self):
        """The shared instance (every use starts with ``reset``, which starts a fresh episode)."""
        if self.shared_env is None or self.shared_env.last_error is not None:
            self.shared_env = self.new_env()
        return self.shared_env

    def run(self, seed: int, policy: Policy, *, fresh: bool = False, **kwargs: Any) -> Episode:
        """Play one episode on the shared instance (``reset`` starts every episode afresh), or on a brand-new
        instance when ``fresh`` (the determinism check compares two fresh instances)."""
        if fresh:
            env = self.new_env()
            try:
                episode = play(env, seed, policy, **kwargs)
            finally:
                env.close()
        else:
            episode = play(self.env(), seed, policy, **kwargs)
            if episode.error is not None:  # a failed instance is not reused
                self.shared_env = None
        self.all_episodes.append(episode)
        return episode


def fail(stage: str, observed: str, causes: list[str], fix: list[str], **details: Any) -> StageResult:
    return StageResult(stage, "failed", observed, causes, fix, details=details)


def ok(stage: str, observed: str, **details: Any) -> StageResult:
    return StageResult(stage, "passed", observed, details=details)


def skipped(stage: str, why: str) -> StageResult:
    return StageResult(stage, "skipped", why)


def describe_error(err: BaseException | None) -> tuple[str, list[str], list[str]]:
    """Observed text, likely causes and fixes for an error raised by environment code."""
    if isinstance(err, SandboxTimeout):
        return (f"a call did not finish in time: {err}", ["an infinite or very long loop", "a search that explodes"],
                ["bound every loop", "precompute less in reset/step"])
    if isinstance(err, SandboxMemoryError):
        return (f"the environment ran out of memory: {err}", ["a huge list/string", "unbounded recursion or growth"],
                ["keep state small (kilobytes)"])
    if isinstance(err, SandboxPolicyError):
        return (f"the sandbox policy refused an operation: {err}",
                ["a forbidden import, builtin or attribute (dunders, private attributes of other objects)"],
                ["use only the allowed modules and plain Python"])
    if isinstance(err, EnvCodeError):
        return (f"the environment code raised: {err}", ["a bug in reset/step/privileged_hint/reference_action"],
                ["fix the line named in the message"])
    if isinstance(err, ContractError):
        return (f"the environment broke the contract: {err}", ["a return value of the wrong type or shape"],
                ["reset returns (str, dict); step returns (str, float, bool, bool, dict) with JSON-only info"])
    if isinstance(err, SandboxError):
        return (f"the sandbox worker failed: {err}", ["the process crashed (e.g. deep recursion)"],
                ["avoid deep recursion and huge allocations"])
    return (f"{type(err).__name__}: {err}", ["unexpected failure"], ["see the message"])


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
        tree = ast.parse(c.source)
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


# -- 6. determinism ---------------------------------------------------------------------------------------------
def check_determinism(c: Candidate) -> StageResult:
    for seed in c.config.seeds[:2]:
        first, second = c.run(seed, reference_policy, fresh=True), c.run(seed, reference_policy, fresh=True)
        if first.error or second.error:
            observed, causes, fix = describe_error(first.error or second.error)
            return fail("determinism", observed, causes, fix)
        if first.trace() != second.trace():
            where = next(i for i, (a, b) in enumerate(zip(first.trace(), second.trace())) if a != b)
            return fail("determinism", f"seed {seed}: two fresh instances diverged at step {where}",
                        ["randomness not taken from the rng argument", "state shared between instances",
                         "iteration over a set or dict of unordered keys"],
                        ["draw every random choice from rng in reset", "keep state on self, not at module level"])
        c.reference_episodes.append(first)
    fingerprints = set()
    env = c.env()
    for seed in c.config.seeds[:5]:
        obs, _ = env.reset(seed=seed)
        fingerprints.add((obs, env.privileged_hint(), env.reference_action()))
    if len(fingerprints) == 1 and len(c.config.seeds) > 1:
        return fail("determinism", "every seed gives the same task (same observation, hint and reference action)",
                    ["reset ignores its rng"], ["draw the task's parameters from rng in reset"])
    return ok("determinism", f"identical traces for identical seeds; {len(fingerprints)} distinct tasks over 5 seeds")


# -- 7. start state ---------------------------------------------------------------------------------------------
def check_start_state(c: Candidate) -> StageResult:
    env = c.env()
    _, info = env.reset(seed=c.config.seeds[0])
    if info.get("success"):
        return fail("start_state", "info['success'] is True right after reset",
                    ["success computed before any action"], ["success only after the task is done"])
    for action in ("", "\x00invalid action\x00"):
        env.reset(seed=c.config.seeds[0])
        _, _, terminated, _, info = env.step(action)
        if info.get("success"):
            return fail("start_state", f"the action {action!r} already succeeds",
                        ["the verifier accepts anything"], ["check the action against the real answer"])
    return ok("start_state", "not successful at reset, after an empty action, or after an invalid one")


# -- 8. baseline policies ---------------------------------------------------------------------------------------
def _rate(c: Candidate, policy: Policy, seeds: list[int]) -> float:
    assert c.manifest is not None
    wins = []
    for seed in seeds:
        if c.manifest.players == 1:
            wins.append(c.run(seed, policy).success)
        else:
            seat = seed % c.manifest.players
            seats = {p: reference_policy for p in range(c.manifest.players)}
            seats[seat] = policy
            episode = c.run(seed, reference_policy, seats=seats)
            rewards = episode.final_info.get("rewards") or [0.0] * c.manifest.players
            wins.append(episode.error is None and rewards[seat] > 0)
    return float(np.mean(wins)) if wins else 0.0


def check_baselines(c: Candidate) -> StageResult:
    seeds = [1000 + i for i in range(c.config.baseline_episodes)]
    rates = {
        "random text": _rate(c, random_text_policy, seeds),
        "constant '0'": _rate(c, constant_policy, seeds),
        "repeat first action": _rate(c, repeat_first_policy(), seeds),
    }
    worst = max(rates, key=rates.get)
    if rates[worst] > c.config.baseline_max_success:
        return fail("baselines", f"the {worst} policy succeeds on {rates[worst]:.0%} of {len(seeds)} seeds",
                    ["the verifier accepts wrong actions", "the task can be guessed"],
                    ["check the exact answer", "make the answer space large"], rates=rates)
    return ok("baselines", "; ".join(f"{k}: {v:.0%}" for k, v in rates.items()), rates=rates)


# -- 9. reference solution --------------------------------------------------------------------------------------
def check_reference(c: Candidate) -> StageResult:
    assert c.manifest is not None
    done = {e.seed for e in c.reference_episodes}
    for seed in c.config.seeds:
        if seed not in done:
            c.reference_episodes.append(c.run(seed, reference_policy))
    errors = [e for e in c.reference_episodes if e.error is not None]
    if errors:
        observed, causes, fix = describe_error(errors[0].error)
        return fail("reference", f"seed {errors[0].seed}: {observed}", causes, fix)
    if c.manifest.players == 1:
        rate = float(np.mean([e.success for e in c.reference_episodes]))
        what = "solves"
    else:
        rate = float(np.mean([e.finished for e in c.reference_episodes]))
        what = "finishes the game in self-play on"
    if rate < c.config.reference_min_success:
        return fail("reference", f"the reference solution {what} only {rate:.0%} of {len(c.reference_episodes)} seeds"
                    f" (need {c.config.reference_min_success:.0%})",
                    ["reference_action does not follow the state", "success is never set", "the task is unsolvable"],
                    ["make reference_action compute the correct next action from internal state",
                     "set info['success'] = True when solved"], rate=rate)
    return ok("reference", f"the reference solution {what} {rate:.0%} of {len(c.reference_episodes)} seeds")


# -- 10. verifier -----------------------------------------------------------------------------------------------
def check_verifier(c: Candidate) -> StageResult:
    assert c.manifest is not None
    if c.manifest.players > 1:
        return skipped("verifier", "games between seats are checked by their rules, not a final answer")
    tried = 0
    for episode in [e for e in c.reference_episodes if e.success][:3]:
        prefix = [s[0] for s in episode.steps[:-1]]
        for bad in mutations(episode.steps[-1][0]):
            env = c.env()
            env.reset(seed=episode.seed)
            for action in prefix:
                env.step(action)
            _, _, _, _, info = env.step(bad)
            tried += 1
            if info.get("success"):
                return fail("verifier", f"seed {episode.seed}: the mutated answer {bad[:80]!r} was accepted "
                            f"(correct: {episode.steps[-1][0][:80]!r})",
                            ["the check is too loose (substring, prefix or 'any number' matching)"],
                            ["compare the parsed answer exactly (or numerically) with the expected one"])
    return ok("verifier", f"rejected {tried} mutated answers")


# -- 11. reward range -------------------------------------------------------------------------------------------
def check_reward_range(c: Candidate) -> StageResult:
    assert c.manifest is not None
    low, high = c.manifest.reward_range
    for episode in c.all_episodes:
        for reward in episode.rewards:
            if not low - 1e-9 <= reward <= high + 1e-9:
                return fail("reward_range", f"seed {episode.seed}: reward {reward} outside the declared [{low}, {high}]",
                            ["reward_range does not match the reward code"],
                            ["declare the true range in ENV_SPEC or clip the reward"])
    seen = [r for e in c.all_episodes for r in e.rewards]
    return ok("reward_range", f"{len(seen)} rewards within [{low}, {high}]")


# -- 12. hint hygiene -------------------------------------------------------------------------------------------
def _normalise(text: str) -> str:
    return re.sub(r"[\s`'\"$\\{}]+", "", text.lower())


def _numbers(text: str) -> set[str]:
    return {n for n in re.findall(r"-?\d+(?:\.\d+)?", text) if len(n.lstrip("-").replace(".", "")) >= 2}


def check_hint(c: Candidate) -> StageResult:
    assert c.manifest is not None
    if c.manifest.players == 1:
        for episode in [e for e in c.reference_episodes if e.success][:5]:
            env = c.env()
            env.reset(seed=episode.seed)
            hint = env.privileged_hint()
            answer = episode.steps[-1][0]
            if len(_normalise(answer)) >= 3 and _normalise(answer) in _normalise(hint):
                return fail("hint", f"seed {episode.seed}: the hint {hint[:120]!r} contains the answer {answer[:60]!r}",
                            ["the hint gives the solution away"],
                            ["hint at a plan, an intermediate result or the relevant rule instead"])
            numbers = _numbers(answer)
            if numbers and numbers <= _numbers(hint):
                return fail("hint", f"seed {episode.seed}: the hint {hint[:120]!r} contains the answer's numbers",
                            ["the hint states the final result"], ["give an intermediate result, not the final one"])
    seeds = [2000 + i for i in range(c.config.baseline_episodes)]
    rate = _rate(c, hint_policy, seeds)
    if rate > c.config.baseline_max_success:
        return fail("hint", f"playing the hint text as the action succeeds on {rate:.0%} of seeds",
                    ["the hint is the answer in other words"], ["make the hint information, not an action"])
    return ok("hint", f"the hint does not contain the answer; copying it succeeds on {rate:.0%}")


# -- 13. grounding ----------------------------------------------------------------------------------------------
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]{4,}|\d{2,}")
_COMMON = {"which", "there", "their", "about", "would", "these", "other", "after", "first", "where", "being"}


def check_grounding(c: Candidate) -> StageResult:
    assert c.manifest is not None
    if c.document is None:
        if c.manifest.grounding.strip() or c.manifest.doc_id:
            return ok("grounding", "no document given; the manifest carries a grounding note")
        return fail("grounding", "neither a grounding document nor a grounding note in ENV_SPEC",
                    ["the environment is not tied to any source"], ["fill ENV_SPEC['grounding'] with what it draws on"])
    terms = {w.lower() for w in _WORD.findall(c.document)} - _COMMON
    text = (c.source + " " + " ".join(e.reset_obs for e in c.reference_episodes)).lower()
    used = sorted(t for t in terms if t in text)
    if len(used) < c.config.grounding_min_overlap:
        return fail("grounding", f"only {len(used)} terms of the document appear in the environment ({used[:5]})",
                    ["the environment ignores its document"],
                    ["use facts, names or numbers from the document in the task"], used=used)
    return ok("grounding", f"uses {len(used)} terms of its document (e.g. {', '.join(used[:5])})")


# -- 14. novelty ------------------------------------------------------------------------------------------------
def check_novelty(c: Candidate) -> StageResult:
    if c.novelty_check is None:
        return skipped("novelty", "no environment memory given")
    nearest = c.novelty_check(c)
    if nearest is None:
        return ok("novelty", "the memory is empty")
    similarity, ref = nearest
    if similarity >= c.config.near_duplicate_similarity:
        c.duplicate_of = ref
        return fail("novelty", f"near-duplicate of {ref} (similarity {similarity:.3f} >= "
                    f"{c.config.near_duplicate_similarity})", ["the same idea with cosmetic changes"],
                    ["write an environment about something else"], duplicate_of=ref, similarity=similarity)
    return ok("novelty", f"nearest stored environment {ref} at similarity {similarity:.3f}")


# -- 15. calibration --------------------------------------------------------------------------------------------
def check_calibration(c: Candidate) -> StageResult:
    if c.probe is None:
        return skipped("calibration", "no probe policy given")
    thresholds = c.config.probe
    seeds = [3000 + i for i in range(thresholds.episodes)]
    hinted = [c.run(s, c.probe, options={"hint": True}).success for s in seeds]
    plain = [c.run(s, c.probe).success for s in seeds]
    p_hint, p_plain = float(np.mean(hinted)), float(np.mean(plain))
    details = {"p_hint": p_hint, "p_nohint": p_plain, "seeds": seeds}
    if p_hint <= thresholds.impossible_below:
        c.outcome_status = "impossible"
        return fail("calibration", f"the probe never succeeds even with the hint ({p_hint:.0%})",
                    ["the task is too hard or broken for the current agent"],
                    ["make it easier (lower the difficulty default) or the hint more useful"], **details)
    if p_plain >= thresholds.trivial_above:
        c.outcome_status = "trivial"
        return fail("calibration", f"the probe always succeeds without the hint ({p_plain:.0%})",
                    ["the task is too easy"], ["make it harder so that the hint matters"], **details)
    return ok("calibration", f"hinted {p_hint:.0%} vs unhinted {p_plain:.0%}", **details)


PIPELINE: tuple[tuple[str, Callable[[Candidate], StageResult]], ...] = (
    ("structure", check_structure),
    ("exact_duplicate", check_exact_duplicate),
    ("policy", check_policy),
    ("instantiate", check_instantiate),
    ("contract", check_contract),
    ("determinism", check_determinism),
    ("start_state", check_start_state),
    ("baselines", check_baselines),
    ("reference", check_reference),
    ("verifier", check_verifier),
    ("reward_range", check_reward_range),
    ("hint", check_hint),
    ("grounding", check_grounding),
    ("novelty", check_novelty),
    ("calibration", check_calibration),
)


def run_stage(name: str, check: Callable[[Candidate], StageResult], c: Candidate) -> StageResult:
    """Run one stage, time it, and turn any unexpected exception into a failed result naming it."""
    started = time.perf_counter()
    try:
        result = check(c)
    except Exception as exc:  # noqa: BLE001 - a stage must end with a verdict, never crash the validator
        observed, causes, fix = describe_error(exc)
        result = fail(name, observed, causes, fix)
    result.seconds = time.perf_counter() - started
    budget = c.config.budget(name)
    if not result.failed and result.seconds > budget:
        result = fail(name, f"the stage took {result.seconds:.1f} s, over its {budget:.0f} s budget",
                      ["the environment is too slow"], ["make reset/step cheap (milliseconds)"])
    return result
