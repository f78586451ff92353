"""The pipeline's checks, cheapest first (docs/design.md §3). Each returns a :class:`StageResult` and never raises.

A stage reads and writes the shared :class:`Candidate` (parsed manifest, instance factory, episodes played so far)
so later stages reuse earlier work instead of replaying it.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from spade_core.contract.inner import REQUIRED_METHODS, HandleFactory
from spade_core.errors import (
    ContractError,
    EnvCodeError,
    ManifestError,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
)
from spade_core.seeding import probe_seed, screening_seeds
from spade_core.validation.adversaries import (
    PROBE_STEPS,
    ActionTemplate,
    Adversary,
    adversaries,
    enumeration,
    hint_follower,
    random_legal,
)
from spade_core.validation.config import ValidationConfig
from spade_core.validation.episodes import (
    EnvFactory,
    Episode,
    Policy,
    first_difference,
    hint_policy,
    play,
    random_text_policy,
    reference_policy,
    repeat_first_policy,
)
from spade_core.validation.hint_leaks import DecodedText, new_leaks
from spade_core.validation.probes import (
    deviation,
    edge_inputs,
    equivalents,
    mirrored,
    near_misses,
    tolerance_probes,
)
from spade_core.validation.report import StageResult, Verdict
from spade_registry.manifest import EnvManifest
from spade_registry.records import Status
from spade_registry.syntax import parse_source

if TYPE_CHECKING:
    from spade_core.memory.fingerprint import Fingerprint
    from spade_core.validation.calibration import CalibrationProbe
    from spade_core.validation.novelty import NoveltyMemory


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
    probe: Policy | CalibrationProbe | None = None
    memory: NoveltyMemory | None = None
    content_hash: str = ""
    tree: ast.Module | None = None
    manifest: EnvManifest | None = None
    envs: EnvFactory | None = None
    reference_episodes: list[Episode] = field(default_factory=list)
    all_episodes: list[Episode] = field(default_factory=list)
    outcome_status: Status | None = None
    duplicate_of: str | None = None
    shared_env: Any = None
    fingerprint: Fingerprint | None = None
    replays: dict[tuple[int, int], Episode] = field(default_factory=dict)  # (played seed's reference, on seed)
    results: dict[str, StageResult] = field(default_factory=dict)  # every stage's result so far, by stage name

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


CANDIDATE_INPUTS: frozenset[str] = frozenset({
    "source", "file", "config", "handle_factory_for", "allowed_modules", "store", "document", "probe", "memory",
    "content_hash",
})
"""What every :class:`Candidate` starts with, before any stage runs: any stage may read these."""

CANDIDATE_SHARED: frozenset[str] = frozenset({
    "all_episodes", "shared_env", "replays", "results", "outcome_status", "duplicate_of",
})
"""Bookkeeping any stage may read and add to: every episode played so far, the reused instance, cross-seed replays,
the results so far, the status a failure gives and the duplicate it names."""

CANDIDATE_PRODUCTS: frozenset[str] = frozenset(Candidate.__dataclass_fields__) - CANDIDATE_INPUTS - CANDIDATE_SHARED
"""What stages make for later ones (the parsed module and manifest, the instance factory, the reference's episodes,
the behavioural fingerprint): a stage reads one only when a stage it needs exports it (``Stage.reads``/``exports``)."""


def fail(stage: str, observed: str, causes: list[str], fix: list[str], **details: Any) -> StageResult:
    return StageResult(stage, Verdict.FAILED, observed, causes, fix, details=details)


def fail_rule(stage: str, observed: str, causes: list[str], fix: list[str], *, rule: str,
              **details: Any) -> StageResult:
    """A failed property check: the rule it states is the last fix the designer reads, and kept in ``details``."""
    return fail(stage, observed, causes, [*fix, f"keep the rule: {rule}"], rule=rule, **details)


def ok(stage: str, observed: str, **details: Any) -> StageResult:
    return StageResult(stage, Verdict.PASSED, observed, details=details)


def skipped(stage: str, why: str) -> StageResult:
    return StageResult(stage, Verdict.SKIPPED, why)


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


# -- 6. determinism ---------------------------------------------------------------------------------------------
def _probe_policy(template: ActionTemplate, max_turns: int) -> Policy:
    """A fixed, mostly wrong policy whose episodes exercise the feedback: it enumerates 0, 1, 2, ... in the answer
    format of the reference (the same actions on every seed, so its traces differ only through the task)."""
    return enumeration(template, max_turns).make()


def _template(c: Candidate) -> ActionTemplate:
    """The answer format of the reference's actions (its final action for puzzles, its first move for games)."""
    for episode in c.reference_episodes:
        if episode.steps:
            return ActionTemplate.of(episode.steps[-1][0] if _single_player(c) else episode.steps[0][0])
    return ActionTemplate()


def _single_player(c: Candidate) -> bool:
    return c.manifest is None or c.manifest.players == 1


def _labelled(episode: Episode, label: str) -> Episode:
    episode.label = label
    return episode


def check_determinism(c: Candidate) -> StageResult:
    """One seed, one task: the same seed gives the same whole trajectory on fresh instances, on an instance that
    already played other (failed) episodes, and with or without ``privileged_hint()`` calls; and the task is not
    the same for every seed."""
    stage = "determinism"
    causes = ["randomness not taken from the rng argument", "state kept at module level or carried over from an "
              "earlier episode", "iteration over a set or dict of unordered keys"]
    fix = ["draw every random choice from rng in reset", "reset every attribute in reset; keep state on self"]
    seeds = list(c.config.seeds[: max(1, c.config.determinism_seeds)])
    used = c.new_env()
    first_refs: list[Episode] = []
    probes: list[Episode] = []
    for seed in seeds:
        hinted = _labelled(c.run(seed, reference_policy, fresh=True, record_hints=True), "reference")
        if hinted.error is not None:
            observed, err_causes, err_fix = describe_error(hinted.error)
            return fail(stage, f"seed {seed}: {observed}", err_causes, err_fix)
        template = ActionTemplate.of(hinted.steps[-1][0] if hinted.steps and _single_player(c) else
                                     hinted.steps[0][0] if hinted.steps else "")
        plain = c.run(seed, reference_policy, fresh=True)
        where = first_difference(hinted, plain)
        if where:
            again = c.run(seed, reference_policy, fresh=True, record_hints=True)
            if first_difference(hinted, again):
                return fail(stage, f"seed {seed}: two fresh instances diverged ({first_difference(hinted, again)})",
                            causes, fix)
            return fail(stage, f"seed {seed}: calling privileged_hint() changes the episode ({where})",
                        ["privileged_hint() changes state (a counter, the secret, the rng)"],
                        ["make privileged_hint() read state only"])
        turns = c.manifest.max_turns if c.manifest else 1
        for other, policy in ((probe_seed(seed, "random-text"), random_text_policy),
                              (probe_seed(seed, "template"), _probe_policy(template, turns))):
            c.all_episodes.append(play(used, other, policy, max_steps=PROBE_STEPS))  # failed episodes first
        replay = play(used, seed, reference_policy, record_hints=True)
        c.all_episodes.append(replay)
        where = first_difference(hinted, replay)
        if where:
            return fail(stage, f"seed {seed}: after other (failed) episodes on the same instance the reference "
                        f"episode is not the same as on a fresh instance ({where})", causes, fix)
        fresh_probe = _labelled(c.run(seed, _probe_policy(template, turns), fresh=True), "probe")
        used_probe = play(used, seed, _probe_policy(template, turns))
        c.all_episodes.append(used_probe)
        where = first_difference(fresh_probe, used_probe)
        if where:
            return fail(stage, f"seed {seed}: a probe episode differs between a fresh instance and one that "
                        f"played before ({where})", causes, fix)
        c.reference_episodes.append(hinted)
        first_refs.append(hinted)
        probes.append(fresh_probe)
    if len(seeds) > 1 and _same_task(first_refs, probes):
        more = _same_task_on_more_seeds(c, seeds, template, turns)
        if more is not None:
            return fail(stage, f"every seed gives the same task: the whole reference and probe episodes are "
                        f"identical for seeds {', '.join(map(str, more))}", ["reset ignores its rng"],
                        ["draw the task's parameters (secret, data, position) from rng in reset"])
    return ok(stage, f"identical whole trajectories for the same seed on fresh and used instances, with and "
              f"without hint calls ({len(seeds)} seeds); the task depends on the seed")


SAME_TASK_SEEDS = 8
"""Seeds that must all give the same task before "every seed gives the same task" is concluded: two seeds of a small
space (24 secrets) collide one time in 24, eight agree by chance about once in 24**7."""


def _same_task(references: list[Episode], probes: list[Episode]) -> bool:
    return all(e.trace()[:-1] == references[0].trace()[:-1] for e in references) and all(
        e.trace() == probes[0].trace() for e in probes)


def _same_task_on_more_seeds(c: Candidate, seeds: list[int], template: ActionTemplate,
                             turns: int) -> list[int] | None:
    """The seeds judged when the first ones all gave the same task: those and more, up to :data:`SAME_TASK_SEEDS`;
    None as soon as one of them gives another task."""
    wider = list(dict.fromkeys([*seeds, *screening_seeds(SAME_TASK_SEEDS)]))[:SAME_TASK_SEEDS]
    references = [_labelled(c.run(s, reference_policy, fresh=True), "reference") for s in wider]
    probes = [_labelled(c.run(s, _probe_policy(template, turns), fresh=True), "probe") for s in wider]
    return wider if _same_task(references, probes) else None


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
def _adversary_seeds(c: Candidate) -> list[int]:
    """The reference seeds first (so a policy's rewards can be compared with solving the same task), then more."""
    extra = screening_seeds(c.config.screen_seeds + c.config.baseline_episodes)
    return list(dict.fromkeys([*c.config.seeds, *extra]))


def _seat_winner(info: dict[str, Any], players: int) -> int | None:
    """The winning seat of a finished game: ``info['winner']``, else the unique best of ``info['rewards']``."""
    winner = info.get("winner")
    if isinstance(winner, int) and not isinstance(winner, bool) and 0 <= winner < players:
        return winner
    rewards = info.get("rewards")
    if isinstance(rewards, list) and len(rewards) == players and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) for r in rewards):
        best = max(rewards)
        if rewards.count(best) == 1 and best > min(rewards):
            return rewards.index(best)
    return None


def _wins(c: Candidate, policy: Policy, seed: int, label: str, max_steps: int | None = None) -> bool:
    """Whether ``policy`` wins one episode: the task's success, or in a game the seat it plays (``seed`` modulo
    the players; the reference plays the other seats)."""
    assert c.manifest is not None
    if c.manifest.players == 1:
        return _labelled(c.run(seed, policy, max_steps=max_steps), label).success
    seat = seed % c.manifest.players
    seats = {p: reference_policy for p in range(c.manifest.players)}
    seats[seat] = policy
    episode = _labelled(c.run(seed, reference_policy, seats=seats, max_steps=max_steps), label)
    return episode.error is None and _seat_winner(episode.final_info, c.manifest.players) == seat


def too_often(wins: int, n: int, limit: float) -> bool:
    """More than ``limit`` of the episodes won, with confidence: the one-sided 95% Wilson lower bound of the win
    rate is above ``limit`` (a policy that wins by luck on a few seeds of a large answer space passes)."""
    if n == 0 or wins == 0:
        return False
    z, p = 1.645, wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n) > limit


@dataclass
class AdversaryResult:
    name: str
    wins: int
    episodes: int
    won_seeds: list[int]

    @property
    def rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0


def _adversary_rate(c: Candidate, family: list[Adversary]) -> AdversaryResult:
    """Screen on a few seeds; a policy that wins any of them plays the confirmation seeds too. A ``family`` of
    several policies (single-turn tries of different candidates) wins a seed if any of its members does."""
    seeds = _adversary_seeds(c)
    screen = seeds[: c.config.screen_seeds]
    name = family[0].name

    def play_seed(seed: int) -> bool:
        return any(_wins(c, member.make(), seed, member.name, member.max_steps) for member in family)

    won = [s for s in screen if play_seed(s)]
    played = len(screen)
    if won:
        for seed in seeds[len(screen): len(screen) + c.config.baseline_episodes]:
            played += 1
            if play_seed(seed):
                won.append(seed)
    return AdversaryResult(name, len(won), played, won)


def check_baselines(c: Candidate) -> StageResult:
    """Adversarial policies must not win: plausible constants, the same well-formed action to the end, values
    copied from the observation, many candidates in one action, enumeration up to max_turns, random text."""
    assert c.manifest is not None
    template = _template(c)
    single = c.manifest.single_turn
    pool = adversaries(template, max_turns=c.manifest.max_turns, single_turn=single)
    pool += [Adversary("random text", lambda: random_text_policy),
             Adversary("a random action repeated every turn", repeat_first_policy)]
    results = [_adversary_rate(c, [adversary]) for adversary in pool]
    limit = c.config.baseline_max_success
    bad = [r for r in results if too_often(r.wins, r.episodes, limit)]
    rates = {r.name: round(r.rate, 3) for r in results if r.wins}
    if bad:
        worst = max(bad, key=lambda r: r.rate)
        seeds = ", ".join(map(str, worst.won_seeds[:8]))
        return fail("baselines", f"the policy '{worst.name}' wins {worst.wins} of {worst.episodes} episodes "
                    f"(seeds {seeds}); a sound task allows at most {limit:.0%}",
                    _adversary_causes(worst.name), ["check the exact answer against the task's own solution",
                                                    "enforce the stated try limit (end the episode when it is used up)",
                                                    "make the answer space large and keep the answer out of the "
                                                    "observation"], rates=rates)
    return ok("baselines", f"{len(results)} adversarial policies (constants, copies of the observation, "
              f"concatenations, enumeration, random text) win at most {max((r.rate for r in results), default=0):.0%}",
              rates=rates)


def _adversary_causes(name: str) -> list[str]:
    if "enumerating" in name:
        return ["the try limit is not enforced, so every candidate can be tried", "max_turns is larger than the "
                "answer space"]
    if "observation" in name:
        return ["the answer is visible in the observation", "the verifier accepts a value the task shows"]
    if "repeated" in name:
        return ["the verifier accepts a fixed answer", "success is granted when the turns run out",
                "a substring/any-number check accepts an action holding many candidates"]
    return ["the verifier accepts wrong actions", "the task can be guessed"]


# -- 9. reference solution --------------------------------------------------------------------------------------
def check_reference(c: Candidate) -> StageResult:
    """Solvable on (nearly) every seed: the reference succeeds (games: finishes) on at least
    ``reference_min_success`` of the seeds; the failing seeds are named."""
    assert c.manifest is not None
    done = {e.seed for e in c.reference_episodes}
    seeds = c.config.seeds if c.manifest.players == 1 else c.config.seeds[: c.config.seat_games]
    for i, seed in enumerate(seeds):
        if seed not in done:
            record = i < c.config.hint_episodes
            c.reference_episodes.append(_labelled(c.run(seed, reference_policy, record_hints=record), "reference"))
    errors = [e for e in c.reference_episodes if e.error is not None]
    if errors:
        observed, causes, fix = describe_error(errors[0].error)
        return fail("reference", f"seed {errors[0].seed}: {observed}", causes, fix)
    if c.manifest.players == 1:
        failed = [e.seed for e in c.reference_episodes if not e.success]
        what = "solves"
    else:
        failed = [e.seed for e in c.reference_episodes if not e.finished]
        what = "finishes the game in self-play on"
    n = len(c.reference_episodes)
    rate = 1 - len(failed) / n if n else 0.0
    if rate < c.config.reference_min_success:
        shown = ", ".join(map(str, failed[:12])) + (" ..." if len(failed) > 12 else "")
        return fail("reference", f"the reference solution {what} only {n - len(failed)} of {n} seeds "
                    f"({rate:.0%}, need {c.config.reference_min_success:.0%}); it fails on seeds {shown}",
                    ["reference_action does not follow the state", "success is never set",
                     "the task is unsolvable on some seeds (a value the observation never shows, an impossible "
                     "draw)"],
                    ["make reference_action compute the correct next action from internal state",
                     "set info['success'] = True when solved", "draw only solvable tasks in reset"],
                    rate=rate, failing_seeds=failed)
    hidden = _answer_not_determined(c) if c.manifest.single_turn else None
    if hidden is not None:
        return hidden
    drift = _drift_on_used_instance(c)
    if drift is not None:
        return drift
    note = f"; fails on seed(s) {', '.join(map(str, failed))}" if failed else ""
    return ok("reference", f"the reference solution {what} {n - len(failed)} of {n} seeds{note}", rate=rate,
              failing_seeds=failed)


def _answer_not_determined(c: Candidate) -> StageResult | None:
    """One observation, one answer: two seeds that show the same observation must accept the same answer (else the
    answer depends on something the agent never sees)."""
    by_obs: dict[str, Episode] = {}
    for episode in c.reference_episodes:
        if not episode.success:
            continue
        other = by_obs.setdefault(episode.reset_obs, episode)
        if other is episode or other.actions == episode.actions:
            continue
        check = _labelled(c.run(episode.seed, _replaying(other.actions)), "another seed's answer")
        if not check.success:
            return fail("reference", f"seeds {other.seed} and {episode.seed} show the same observation "
                        f"({other.reset_obs[:100]!r}) but need different answers ({other.actions[-1][:40]!r} vs "
                        f"{episode.actions[-1][:40]!r}): the answer depends on something the agent never sees",
                        ["the task hides a quantity the answer depends on", "the reference reads internal state "
                         "the observation does not show"],
                        ["show every quantity the answer depends on"], seeds=[other.seed, episode.seed])
    return None


def _drift_on_used_instance(c: Candidate) -> StageResult | None:
    """The reference episodes of later seeds were played on an instance that had played many episodes before; two
    of them replayed on a fresh instance must be the same (state leaking from one episode into the next shows on
    some seeds only)."""
    checked = {e.seed for e in c.reference_episodes[: c.config.determinism_seeds]}
    later = [e for e in c.reference_episodes if e.seed not in checked and e.error is None][-2:]
    for episode in later:
        fresh = c.run(episode.seed, reference_policy, fresh=True)
        where = first_difference(episode, fresh)
        if where:
            return fail("reference", f"seed {episode.seed}: the reference episode played after other episodes on "
                        f"the same instance differs from the one on a fresh instance ({where})",
                        ["state carried over from earlier episodes", "state kept at module level"],
                        ["reset every attribute in reset; keep state on self"])
    return None


def _replaying(actions: list[str]) -> Policy:
    def policy(env: Any, obs: str, info: dict[str, Any]) -> str:
        return actions[min(env.turn, len(actions) - 1)]

    return policy


# -- 10. verifier -----------------------------------------------------------------------------------------------
def _replay_then(c: Candidate, episode: Episode, action: str) -> dict[str, Any] | None:
    """Replay the episode's actions but the last, then play ``action``; the info of that step (None if the
    environment failed on the way)."""
    env = c.env()
    env.reset(seed=episode.seed)
    for prefix_action in episode.actions[:-1]:
        *_, info = env.step(prefix_action)
        if info.get("sandbox_error") is not None or env.done:
            return None
    *_, info = env.step(action)
    if info.get("sandbox_error") is not None:
        c.shared_env = None
        return None
    return info


def check_verifier(c: Candidate) -> StageResult:
    """Both directions: near misses of the correct final answer (sign flips, permutations, neighbours, the
    answer inside a longer string) are rejected, and equivalent forms of it (spaces, 42.0, 2/6) accepted. Games:
    no seat wins (nearly) every game, neither between references nor between random legal players."""
    assert c.manifest is not None
    if c.manifest.players > 1:
        return _seat_bias(c)
    solved = [e for e in c.reference_episodes if e.success][:2]
    tried = 0
    for episode in solved:
        final = episode.steps[-1][0]
        tolerance = Fraction(0)  # the task's own: the largest sane deviation its verifier accepts
        for probe, moved in tolerance_probes(final):
            info = _replay_then(c, episode, probe.action)
            tried += 1
            if info is None or not info.get("success"):
                break
            tolerance = moved
        for probe in near_misses(final, c.manifest.domain):
            off = deviation(probe.action, final) if tolerance else None
            if off is not None and off <= tolerance:
                continue  # inside the tolerance the task itself accepts: an equivalent form, not a near miss
            info = _replay_then(c, episode, probe.action)
            tried += 1
            if info is not None and info.get("success") and _inside_band(c, episode, probe.action, final):
                continue  # the verifier's own stated tolerance: a band around the answer, accepted both ways
            if info is not None and info.get("success"):
                return fail("verifier", f"seed {episode.seed}: {probe.what} {probe.action[:80]!r} was accepted "
                            f"(the correct answer is {final[:80]!r})",
                            ["the check is too loose (substring, prefix, absolute value, sorted letters or "
                             "'any number' matching)"],
                            ["compare the parsed answer exactly (or numerically) with the expected one"])
        for probe in equivalents(final, c.manifest.domain):
            info = _replay_then(c, episode, probe.action)
            tried += 1
            if info is not None and not info.get("success") and info.get("format_error") is None \
                    and info.get("action_is_valid") is not False:
                return fail("verifier", f"seed {episode.seed}: {probe.what} {probe.action[:80]!r} was judged wrong "
                            f"(the reference answered {final[:80]!r})",
                            ["the answer is compared as a string, not by value", "surrounding whitespace is not "
                             "stripped"],
                            ["strip the action and compare numbers by value (e.g. answers_match / to_number from "
                             "the math domain's verify helpers)"])
    return ok("verifier", f"rejected every near miss and accepted every equivalent form ({tried} probes)")


def _inside_band(c: Candidate, episode: Episode, action: str, final: str) -> bool:
    """Whether an accepted numeric near miss lies inside a tolerance band the verifier keeps around the answer: it
    is within :data:`~spade_core.validation.probes.MAX_TOLERANCE` and the answer moved as far the other way is
    accepted too."""
    other = mirrored(action, final)
    if other is None:
        return False
    info = _replay_then(c, episode, other.action)
    return info is not None and bool(info.get("success"))


def _seat_bias(c: Candidate) -> StageResult:
    assert c.manifest is not None
    players = c.manifest.players
    games = [e for e in c.reference_episodes if e.error is None]
    for label, episodes in (("reference-vs-reference", games), ("random legal players'", None)):
        if episodes is None:
            seeds = _adversary_seeds(c)[: c.config.seat_games]
            episodes = [_labelled(c.run(s, random_legal(s)), "random legal") for s in seeds]
            episodes = [e for e in episodes if e.error is None]
        wins = [0] * players
        for episode in episodes:
            seat = _seat_winner(episode.final_info, players)
            if seat is not None:
                wins[seat] += 1
        if episodes and max(wins) / len(episodes) >= c.config.seat_max_share:
            seat = wins.index(max(wins))
            return fail("verifier", f"seat {seat} wins {max(wins)} of {len(episodes)} {label} games "
                        f"({max(wins) / len(episodes):.0%}; at most {c.config.seat_max_share:.0%} allowed)",
                        ["the rules favour one seat (who moves first, an unequal deal)", "the winner is decided "
                         "without regard to the moves"],
                        ["alternate or draw who starts from rng (randomise the opening or tie-breaks)",
                         "give both seats the same chances"],
                        wins=wins)
    return ok("verifier", "no seat dominates reference-vs-reference or random legal games")


# -- 11. reward range and semantics -----------------------------------------------------------------------------
def _reward_error(err: BaseException | None) -> bool:
    return isinstance(err, ContractError) and "reward" in str(err)


def check_reward_range(c: Candidate) -> StageResult:
    """Rewards inside the declared range and meaning what success means: success implies terminated, the top
    reward coincides with success, a malformed action never earns more than a wrong one, edge inputs (nan, inf,
    huge, empty, very long, non-ASCII) keep the reward finite and in range, and observations stay bounded."""
    assert c.manifest is not None
    stage = "reward_range"
    low, high = c.manifest.reward_range
    edge = _edge_episodes(c)
    episodes = [*c.all_episodes]
    for episode in episodes:
        if _reward_error(episode.error):
            return fail(stage, f"seed {episode.seed}: after {_acts(episode)} the reward is not a finite number "
                        f"({episode.error})", ["the reward is computed from the parsed action (float('nan'), "
                                                 "inf)"], ["compute the reward from the verdict only; reject "
                                                           "non-finite numbers as malformed"])
        for reward in episode.rewards:
            if not low - 1e-9 <= reward <= high + 1e-9:
                return fail(stage, f"seed {episode.seed}: reward {reward} after {_acts(episode)} is outside the "
                            f"declared [{low}, {high}]", ["reward_range does not match the reward code"],
                            ["declare the true range in ENV_SPEC or clip the reward"])
        for i, info in enumerate(episode.infos):
            if info.get("success") and not episode.steps[i][3]:
                return fail(stage, f"seed {episode.seed}: turn {i + 1} reports success but the episode goes on "
                            "(terminated is False)", ["success is set before the task ends"],
                            ["return terminated=True on the step that succeeds"])
    for probe, episode in edge:
        if episode.success:
            return fail(stage, f"seed {episode.seed}: the edge input {probe.what} ({probe.action[:40]!r}) "
                        "succeeds", ["the parser turns odd input into a match (nan, inf, empty)"],
                        ["reject input that does not parse as an answer"])
    problem = _reward_meaning(c) or _observation_bound(c)
    if problem:
        return problem
    seen = sum(len(e.rewards) for e in episodes)
    return ok(stage, f"{seen} rewards within [{low}, {high}]; success coincides with the top reward and ends the "
              f"episode; {len(edge)} edge inputs handled")


def _acts(episode: Episode) -> str:
    shown = [repr(a[:40]) for a in episode.actions[-2:]]
    return "the action(s) " + ", ".join(shown) if shown else "reset"


def _edge_episodes(c: Candidate) -> list[tuple[Any, Episode]]:
    """One step of every edge input from the start of the first seed."""
    assert c.manifest is not None
    seed = c.config.seeds[0]
    out = []
    for probe in edge_inputs(_template(c), c.manifest.max_action_chars):
        episode = Episode(seed=seed, label=f"edge input: {probe.what}")
        env = c.env()
        try:
            obs, info = env.reset(seed=seed)
        except Exception as exc:  # recorded like any episode failure
            episode.error = exc
            c.shared_env = None
            out.append((probe, episode))
            continue
        episode.reset_obs, episode.reset_info = obs, dict(info)
        obs, reward, terminated, truncated, info = env.step(probe.action)
        episode.observations.append(episode.reset_obs)
        episode.steps.append((probe.action, obs, float(reward), terminated, truncated))
        episode.infos.append(info)
        episode.final_info = info
        if info.get("sandbox_error") is not None:
            episode.error = info["sandbox_error"]
            c.shared_env = None
        c.all_episodes.append(episode)
        out.append((probe, episode))
    return out


def _reward_meaning(c: Candidate) -> StageResult | None:
    """The top reward goes with success; failing never earns more than solving the same task; a malformed action
    never earns more than a well-formed wrong one from the same start, over the episode."""
    stage = "reward_range"
    episodes = [e for e in c.all_episodes if e.steps]
    success_steps = [s[2] for e in episodes for s, i in zip(e.steps, e.infos, strict=False) if i.get("success")]
    if _single_player(c) and success_steps:
        top = max(success_steps)
        for e in episodes:
            for (action, _, reward, _, _), info in zip(e.steps, e.infos, strict=False):
                if not info.get("success") and reward > top + 1e-9:
                    return fail(stage, f"seed {e.seed}: the non-solving action {action[:60]!r} earns {reward:g}, "
                                f"more than any solving step ({top:g})",
                                ["the reward is inverted or pays for something other than solving (length, "
                                 "attempts, format)"], ["give the top reward exactly when info['success'] is "
                                                        "True"])
        solved = {e.seed: e.total_reward for e in c.reference_episodes if e.success}
        for e in episodes:
            if not e.success and e.seed in solved and e.total_reward > solved[e.seed] + 1e-9:
                who = f" ({e.label})" if e.label else ""
                return fail(stage, f"seed {e.seed}: a failing episode{who} earns {e.total_reward:g} in total, "
                            f"more than solving the same task ({solved[e.seed]:g})",
                            ["rewards accumulate for actions that do not solve the task (spam, repeated tries)"],
                            ["reward solving; do not pay per action or per attempt"])
    by_seed: dict[int, list[tuple[str, float, dict[str, Any]]]] = {}
    for e in episodes:
        if e.error is None or e.infos:
            by_seed.setdefault(e.seed, []).append((e.steps[0][0], e.steps[0][2], e.infos[0]))
    for seed, firsts in by_seed.items():
        malformed = [(a, r) for a, r, i in firsts if i.get("format_error") is not None]
        wrong = [(a, r) for a, r, i in firsts if i.get("format_error") is None and not i.get("success")
                 and i.get("action_is_valid", True) is not False]
        if malformed and wrong:
            bad = max(malformed, key=lambda ar: ar[1])
            worst = min(wrong, key=lambda ar: ar[1])
            if bad[1] > worst[1] + 1e-9:
                problem = _malformed_over_episodes(c, seed, bad[0], worst[0])
                if problem is not None:
                    return problem
    return None


def _malformed_over_episodes(c: Candidate, seed: int, malformed: str, wrong: str) -> StageResult | None:
    """A malformed first action earned more than a wrong one in a single step; compared over whole episodes (each
    action played every turn to the end), the malformed one must not earn more (a rule such as "three malformed
    moves in a row forfeit" charges it later)."""
    assert c.manifest is not None
    turns = c.manifest.max_turns
    garbage = _labelled(c.run(seed, _replaying([malformed]), max_steps=turns), "a malformed action every turn")
    tried = _labelled(c.run(seed, _replaying([wrong]), max_steps=turns), "a wrong action every turn")
    if garbage.error is not None or tried.error is not None or tried.success:
        return None
    if garbage.total_reward > tried.total_reward + 1e-9:
        return fail("reward_range", f"seed {seed}: the malformed action {malformed[:40]!r} played every turn earns "
                    f"{garbage.total_reward:g} over {len(garbage.steps)} steps, more than the well-formed wrong "
                    f"answer {wrong[:40]!r} played every turn ({tried.total_reward:g} over {len(tried.steps)} steps)",
                    ["format errors are rewarded (or wrong answers penalised harder than garbage)"],
                    ["give malformed actions at most what wrong ones earn over an episode"])
    return None


def _observation_bound(c: Candidate) -> StageResult | None:
    limit = c.config.max_observation_chars
    for e in c.all_episodes:
        lengths = [len(e.reset_obs), *(len(s[1]) for s in e.steps)]
        if max(lengths) > limit:
            turn = lengths.index(max(lengths))
            return fail("reward_range", f"seed {e.seed}: the observation at turn {turn} is {max(lengths)} "
                        f"characters (more than {limit})", ["the observation grows with the history"],
                        ["show only the current state and the last feedback"])
        if len(lengths) >= 6 and lengths[-1] > 4000 and lengths[-1] > 8 * max(lengths[1], 100):
            return fail("reward_range", f"seed {e.seed}: the observation grows without bound, from "
                        f"{lengths[1]} characters at turn 1 to {lengths[-1]} at turn {len(lengths) - 1}",
                        ["the observation repeats or doubles the history"],
                        ["show only the current state and the last feedback"])
    return None


# -- 12. hint hygiene -------------------------------------------------------------------------------------------
def _hinted_references(c: Candidate) -> list[Episode]:
    """Reference episodes with the hint read before every action (replayed with hints when they were not)."""
    wanted = c.config.hint_episodes
    usable = [e for e in c.reference_episodes if e.error is None and (e.success or not _single_player(c))]
    out = []
    for episode in usable[:wanted]:
        if len(episode.hints) != len(episode.steps):
            episode = _labelled(c.run(episode.seed, reference_policy, record_hints=True), "reference")
        if episode.error is None and len(episode.hints) == len(episode.steps):
            out.append(episode)
    return out


@dataclass
class _LeakTally:
    episodes: set[int] = field(default_factory=set)
    turns: int = 0  # turns at which the decoder recovered the target
    targets: set[str] = field(default_factory=set)  # the distinct targets it recovered
    strong: bool = False
    example: str = ""


def scan_hint_leaks(episodes: list[Episode], *, final_answers: bool) -> dict[tuple[str, str], _LeakTally]:
    """Run every decoder over the hint at every turn of every episode, against the final answer and the next
    reference action. A strong leak counts only where the observation at that turn does not already give the
    target away; a weak one (a short answer, a nearby number) is judged by consistency: it must track the target
    on a large share of the turns, across episodes and for different targets (a hint that always says "four" in
    a game whose best move is often 4 does not). The tally
    keyed ``("turns", "")`` holds how many turns were scanned."""
    tallies: dict[tuple[str, str], _LeakTally] = {("turns", ""): _LeakTally()}
    decoded: dict[str, DecodedText] = {}

    def prepared(text: str) -> DecodedText:
        if text not in decoded:
            decoded[text] = DecodedText(text)
        return decoded[text]

    for episode in episodes:
        final = episode.steps[-1][0]
        # everything the agent sees in the episode, uncut: a tool or move the task names anywhere is no leak
        visible = DecodedText("\n".join(dict.fromkeys([episode.reset_obs, *episode.observations,
                                                        *(s[1] for s in episode.steps)])), limit=None)
        for turn, (hint, action) in enumerate(zip(episode.hints, episode.actions, strict=False)):
            tallies[("turns", "")].turns += 1
            hint_text = prepared(hint)
            targets = [("next action", action)]
            if final_answers and action != final:
                targets.append(("answer", final))
            elif final_answers:
                targets = [("answer", final)]
            for what, target in targets:
                for leak in new_leaks(hint_text, visible, target):
                    tally = tallies.setdefault((what, leak.decoder), _LeakTally())
                    tally.episodes.add(episode.seed)
                    tally.targets.add(target)
                    tally.turns += 1
                    if leak.strong and not tally.strong:
                        tally.strong = True
                        tally.example = ""
                    if not tally.example:
                        tally.example = (f"the hint at turn {turn + 1} of seed {episode.seed} "
                                         f"({hint[:100]!r}) {leak.how.format(what=what)} ({target[:40]!r})")
    return tallies


def check_hint(c: Candidate) -> StageResult:
    """Hint hygiene by information (decoders at every turn) and by behaviour (following the hint must not win)."""
    assert c.manifest is not None
    stage = "hint"
    episodes = _hinted_references(c)
    tallies = scan_hint_leaks(episodes, final_answers=_single_player(c))
    scanned = tallies.pop(("turns", "")).turns
    needed = c.config.hint_leak_min_share * scanned
    for (what, decoder), tally in sorted(tallies.items(), key=lambda kv: (not kv[1].strong, -kv[1].turns)):
        if tally.strong or (tally.turns >= needed and len(tally.episodes) >= 2 and len(tally.targets) >= 2):
            share = "" if tally.strong else \
                f" (at {tally.turns} of {scanned} turns, in {len(tally.episodes)} of {len(episodes)} episodes)"
            return fail(stage, tally.example[0].upper() + tally.example[1:] + share,
                        ["the hint gives the solution away, encoded or not"],
                        ["hint at a plan, a rule or an intermediate result that still leaves work to do"],
                        decoder=decoder, target=what)
    template = _template(c)
    attempts = 3 if c.manifest.single_turn else 1
    follower = _adversary_rate(c, [hint_follower(template, k) for k in range(attempts)])
    copier = _adversary_rate(c, [Adversary("copying the hint text as the action", lambda: hint_policy)])
    limit = c.config.baseline_max_success
    for result in (follower, copier):
        if too_often(result.wins, result.episodes, limit):
            return fail(stage, f"{result.name} wins {result.wins} of {result.episodes} episodes (seeds "
                        f"{', '.join(map(str, result.won_seeds[:8]))})",
                        ["the hint is the answer or an instruction that solves the task when obeyed"],
                        ["make the hint information, not an action"], rates={result.name: result.rate})
    return ok(stage, f"no decoder recovers the answer or the next action from the hint over {len(episodes)} "
              f"episodes; following the hint wins {follower.rate:.0%}, copying it {copier.rate:.0%}")


# -- grounding, behaviour, novelty and calibration live in their own modules (grounding.py, novelty.py,
# calibration.py); the list of stages, the loop and the status rule in stage_list.py.
