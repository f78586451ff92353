"""Every knob of the validation pipeline, in one place."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProbeThresholds:
    """Calibration probe verdicts over three arms (unhinted, hinted, hint-only): hinted success at or below
    ``impossible_below`` → impossible; unhinted success at or above ``trivial_above`` → trivial; hint-only success
    near hinted success → the hint leaks; unhinted 0 while hinted near 1 → only the hint lets the agent in."""

    impossible_below: float = 0.0
    """Hinted success at or below this: impossible for the probe."""
    trivial_above: float = 1.0
    """Unhinted success at or above this: trivial for the probe."""
    episodes: int = 8
    """Seeds the probe plays in each arm."""
    hint_only_share: float = 0.5
    """Hint-only success (the hint without the task) at or above this share of hinted success: the hint carries the
    answer (``spade_core.validation.probe``)."""
    hint_only_min: float = 0.25
    """...and at least this rate (a chance success or two of a guessable answer is not a leak)."""
    hidden_hinted_above: float = 0.75
    """Hinted success at or above this while unhinted success is 0: the hint is the only way in (for a capable
    probe: a weak one rejects everything this way, which is why the probe is opt-in)."""


@dataclass(frozen=True)
class NoveltyThresholds:
    """Near-duplicate verdicts on behavioural fingerprints (``spade_core.memory.fingerprint``): a near-duplicate of a
    stored environment when the mean of the observed-text and code-shape similarities reaches ``combined``, or when
    it behaves the same whatever its code (observed text >= ``text`` and dynamics >= ``dynamics``), or when it has the
    same dynamics and code shape whatever its wording (both >= ``code_and_dynamics``). Measured on the
    bundled seeds: distinct seeds reach at most 0.65 combined, renamed copies with changed constants 0.94 or more."""

    combined: float = 0.85
    """The mean of the observed-text and code-shape similarities at which a candidate is a near-duplicate."""
    text: float = 0.9
    """Observed-text similarity that, with ``dynamics``, makes a duplicate whatever the code."""
    dynamics: float = 0.8
    """Reward and ending dynamics similarity that, with ``text``, makes a duplicate whatever the code."""
    code_and_dynamics: float = 0.9
    """Same dynamics and same code shape (both at or above this) is a duplicate whatever the wording: a reworded,
    renamed copy reaches 1.00 and 1.00; distinct bundled seeds at most 0.67 on the lower of the two."""


@dataclass(frozen=True)
class GroundingThresholds:
    """Grounding verdicts (``spade_core.validation.grounding``): a task is grounded when its score (the share of
    seeds whose reference answers change when the document's facts in the code change, times the number of facts
    that decide answers on their own over ``min_facts``, at most 1) reaches ``min_score``."""

    min_facts: int = 3
    """Facts of the document that decide answers on their own for a full score."""
    min_score: float = 0.5
    """The grounding score (0 to 1) a grounded task reaches."""
    require_use: bool = True
    """True (``spade validate --document``): a task that is not grounded fails. False (the designer loop, whose
    document is one sample of a corpus): grounding never rejects; the score is kept with the record."""


STAGE_BUDGET_KEY = "validation.stage_budget_s"
"""How files and messages name the stage-budget knob (``spade validate --stage-budget NAME=SECONDS`` sets it too)."""


def check_stage_budgets(budgets: dict[str, float], stages: Sequence[str] | None = None) -> None:
    """Every override is a finite number of seconds above 0 and (given the names of the stages in effect) names a
    stage; raises ``ValueError`` naming the stage, the value and the valid stage names."""
    for name, seconds in budgets.items():
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not (
                math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"ValidationConfig.stage_budget_s: {name} must be a finite number of seconds above 0, "
                             f"got {seconds!r}")
    unknown = sorted(set(budgets) - set(stages)) if stages is not None else []
    if unknown:
        raise ValueError(f"ValidationConfig.stage_budget_s: no stage named {unknown}; the stages: "
                         f"{', '.join(stages or ())}")


@dataclass(frozen=True)
class ValidationKnobs:
    """The pipeline's knobs a user sets (the self-play ``validation`` section is built on them); the sample sizes a
    run derives from its own knobs are :class:`ValidationConfig`'s."""

    reference_min_success: float = 0.98
    """The reference solves at least this share of its seeds (games: finishes them)."""
    baseline_max_success: float = 0.1
    """An adversarial policy (constants, copies, enumeration, the hint followed) may win at most this share; it
    fails when the 95% lower confidence bound of its win rate is above it."""
    max_guess_share: float = 0.6
    """In a small answer space (yes/no, one of a few options) a blind guess is right by chance as often as the
    commonest answer, and that share replaces ``baseline_max_success``, unless the commonest answer is confidently
    (95% lower bound) more common than this: a balanced yes/no task passes, one whose answer is nearly always the
    same does not."""
    screen_seeds: int = 1
    """Seeds every adversarial policy plays; one that wins any of them plays ``baseline_episodes`` more."""
    determinism_seeds: int = 2
    """Seeds replayed on fresh and used instances, with and without hint calls."""
    knob_seeds: int = 6
    """Seeds played at each difficulty knob's min and max: a knob may matter on some seeds only (a larger pile
    drawn, a longer list), so it is unused only when every one of them plays the same at both ends."""
    hint_episodes: int = 8
    """Reference episodes whose hint is decoded at every turn."""
    hint_leak_min_share: float = 0.5
    """A weak decoder (short answers, small offsets) must recover the target at this share of the scanned turns
    (in two or more episodes, for two or more distinct targets)."""
    seat_games: int = 24
    """Games between random legal players (two-player games)."""
    seat_max_share: float = 0.9
    """A game is seat-biased when one seat wins this share of reference or random legal games."""
    swap_seeds: int = 5
    """Solved seeds whose references are replayed on each other (cross-seed swap, public information)."""
    swap_max_share: float = 0.5
    """Another seed's correct actions may solve at most this share of seeds (a puzzle with many solutions may
    accept some); more fails ``swap``."""
    swap_program_max_share: float = 0.2
    """Where the answers are programs, another seed's program (written for another drawn variant of the
    specification: a rounding rule, a window kind) may pass at most this share of seeds; a puzzle's many solutions do
    not apply, and more means the hidden tests rarely exercise what the seeds' specifications differ in."""
    invariance_min_share: float = 0.9
    """The reference playing one action sequence on this share of solved seeds (whose observations differ) makes
    the task trivial (a family of programming problems shares one program on about half of its seeds)."""
    nonsolving_max_share: float = 0.5
    """The reward rule: a policy that does not succeed earns at most this share of what solving the same seed earns
    (``spade_core.validation.invariants``)."""
    public_info_max_share: float = 0.5
    """Pairs of seeds with different references that no tried action sequence tells apart: more than this share
    fails ``public_info``."""
    shown_value_max_share: float = 0.5
    """One value the task shows (option #k, item #k of a list, the k-th number), given as the answer, may win at
    most this share of seeds (``spade_core.validation.shown_values``); more fails ``shown_values``."""
    out_of_rules_max_share: float = 0.5
    """A player making only moves outside the rules the game states may win at most this share of games
    (``spade_core.validation.out_of_rules``); more fails ``out_of_rules``."""
    unneeded_step_max_share: float = 0.5
    """Seeds on which the reference's last action succeeds without one of its state-changing steps: more than this
    share fails ``final_state`` (``spade_core.validation.final_state``)."""
    max_observation_chars: int = 32_000
    """Observations stay bounded: none longer than this, and none growing without bound over an episode."""
    max_source_chars: int = 200_000
    """A candidate module longer than this (characters) is refused before it is parsed."""
    candidate_budget_s: float = 60.0
    """Total environment time (host-measured, all sandbox calls of all stages) one candidate may use; past it
    every further call fails with a timeout, so code whose every call stays just under the call timeout cannot
    hold validation for minutes."""
    min_cpu_share: float = 0.25
    """The least share of a CPU the time budgets assume a busy machine gives (``spade_core.sandbox.cpu_share``):
    beside other jobs, sandbox time is charged and stage deadlines run at the share the load leaves, so a good
    environment is not rejected because the machine was busy; budgets then last at most ``1 / min_cpu_share`` times
    their wall-clock length. 1.0 keeps them wall-clock."""
    stage_budget_s: dict[str, float] = field(default_factory=dict)
    """Wall-clock budgets (seconds) overriding stages' own, by stage name (each stage declares its budget,
    ``spade_core.validation.stage_list.Stage.budget_s``). A stage's budget is its deadline: every sandbox call it
    makes gets at most the time left and its loops stop there; past it the stage fails naming the budget."""
    grounding: GroundingThresholds = field(default_factory=GroundingThresholds)
    """Grounding verdicts (``spade_core.validation.grounding``)."""
    novelty: NoveltyThresholds = field(default_factory=NoveltyThresholds)
    """Near-duplicate verdicts on behavioural fingerprints."""

    def __post_init__(self) -> None:
        check_stage_budgets(self.stage_budget_s)
        if not 0 < self.min_cpu_share <= 1:
            raise ValueError(f"min_cpu_share is a CPU share in (0, 1], got {self.min_cpu_share!r}")

    def budget(self, stage: str, declared: float) -> float:
        """The wall-clock budget of ``stage``: its override here, else the budget it declares."""
        return float(self.stage_budget_s.get(stage, declared))


@dataclass(frozen=True)
class ValidationConfig(ValidationKnobs):
    """Seeds, thresholds and per-stage time budgets (seconds) of the pipeline: its knobs, and the sample sizes a
    self-play run derives (from ``designer.validation_seeds`` and ``agent.seeds_per_env``)."""

    seeds: tuple[int, ...] = tuple(range(50))
    """The reference's seed sample (solvable on nearly every seed: ``reference_min_success`` of them)."""
    baseline_episodes: int = 16
    """Episodes an adversarial policy that won a screening seed plays."""
    probe: ProbeThresholds = field(default_factory=ProbeThresholds)
    """The calibration probe's verdicts and episodes."""


DESIGN_GROUNDING = GroundingThresholds(require_use=False)
"""Grounding in the designer loop: its document is one corpus sample, so it never rejects."""
DESIGN_VALIDATION = ValidationConfig(grounding=DESIGN_GROUNDING)
"""The designer loop's defaults: its grounding document is one corpus sample, so a task that does not build on it
passes grounding with a low score (kept in its record) rather than failing."""
