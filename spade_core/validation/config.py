"""Every knob of the validation pipeline, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProbeThresholds:
    """Calibration probe verdicts over three arms (unhinted, hinted, hint-only): hinted success at or below
    ``impossible_below`` → impossible; unhinted success at or above ``trivial_above`` → trivial; hint-only success
    near hinted success → the hint leaks; unhinted 0 while hinted near 1 → only the hint lets the agent in."""

    impossible_below: float = 0.0
    trivial_above: float = 1.0
    episodes: int = 8
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
    text: float = 0.9
    dynamics: float = 0.8
    code_and_dynamics: float = 0.9
    """Same dynamics and same code shape (both at or above this) is a duplicate whatever the wording: a reworded,
    renamed copy reaches 1.00 and 1.00; distinct bundled seeds at most 0.67 on the lower of the two."""


@dataclass(frozen=True)
class GroundingThresholds:
    """Grounding verdicts (``spade_core.validation.grounding``): a task is grounded when its score (the share of
    seeds whose reference answers change when the document's facts in the code change, times the number of facts
    that decide answers on their own over ``min_facts``, at most 1) reaches ``min_score``."""

    min_facts: int = 3
    min_score: float = 0.5
    require_use: bool = True
    """True (``spade validate --document``): a task that is not grounded fails. False (the designer loop, whose
    document is one sample of a corpus): grounding never rejects; the score is kept with the record."""


@dataclass(frozen=True)
class ValidationConfig:
    """Seeds, thresholds and per-stage time budgets (seconds) of the pipeline."""

    seeds: tuple[int, ...] = tuple(range(50))
    """The reference's seed sample (solvable on nearly every seed: ``reference_min_success`` of them)."""
    reference_min_success: float = 0.98
    baseline_max_success: float = 0.1
    """An adversarial policy (constants, copies, enumeration, the hint followed) may win at most this share; it
    fails when the 95% lower confidence bound of its win rate is above it."""
    screen_seeds: int = 1
    """Seeds every adversarial policy plays; one that wins any of them plays ``baseline_episodes`` more."""
    baseline_episodes: int = 16
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
    max_observation_chars: int = 32_000
    """Observations stay bounded: none longer than this, and none growing without bound over an episode."""
    max_source_chars: int = 200_000
    candidate_budget_s: float = 60.0
    """Total environment time (host-measured, all sandbox calls of all stages) one candidate may use; past it
    every further call fails with a timeout, so code whose every call stays just under the call timeout cannot
    hold validation for minutes."""
    stage_timeout_s: dict[str, float] = field(default_factory=dict)
    """Wall-clock limits overriding stages' own budgets, by stage name (each stage declares its budget,
    ``spade_core.validation.stage_list.Stage.budget_s``: the play-based ones are sized for long bundled games, a
    60-hand poker match, on a loaded 2-core machine, while ``candidate_budget_s`` bounds the environment's own
    time)."""
    grounding: GroundingThresholds = field(default_factory=GroundingThresholds)
    novelty: NoveltyThresholds = field(default_factory=NoveltyThresholds)
    probe: ProbeThresholds = field(default_factory=ProbeThresholds)

    def budget(self, stage: str, declared: float) -> float:
        """The wall-clock limit of ``stage``: its override here, else the budget it declares."""
        return self.stage_timeout_s.get(stage, declared)


DESIGN_VALIDATION = ValidationConfig(grounding=GroundingThresholds(require_use=False))
"""The designer loop's defaults: its grounding document is one corpus sample, so a task that does not build on it
passes grounding with a low score (kept in its record) rather than failing."""
