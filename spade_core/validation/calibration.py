"""The calibration stage: a probe agent plays the candidate with and without the hint on the same seeds; never
solved even with the hint → impossible, always solved without it → trivial.

A probe is either a scripted :data:`~spade_core.validation.episodes.Policy` (one action per call) or a
:class:`CalibrationProbe` that plays whole batches, such as :class:`AgentProbe`: the agent model itself, through the
episode runner, exactly as self-play's paired rollouts play it; or :class:`ChatProbe`: a served model (``openai:``)
through the chat path the served designer uses, text in and text out, so no local tokenizer is needed. The probe
lives in the validating process, so this stage runs on the driver.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spade_core.contract.env import HINT_OPTION, SpadeEnv
from spade_core.validation.candidate import CalibrationProbe, Candidate
from spade_core.validation.episodes import EnvFactory, Policy, play
from spade_core.validation.probe import UNCHECKED, HintOnly
from spade_core.validation.report import StageResult, Verdict
from spade_registry.records import Status

if TYPE_CHECKING:
    from spade_core.models.base import ModelBackend, SamplingParams
    from spade_core.rollout.specs import RolloutConfig

CALIBRATION_SEED_BASE = 3000
PROBE_SECONDS = "probe_seconds"
"""The calibration details' key for time spent playing the probe: the model's time, not the environment's, so the
stage's time budget does not count it."""


class PolicyProbe:
    """A scripted policy as a probe: one episode per seed, one action per call."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def successes(self, make_env: Callable[[], SpadeEnv], seeds: Sequence[int], *, hinted: bool) -> list[bool]:
        env = make_env()
        try:
            return [play(env, seed, self.policy, options={HINT_OPTION: True} if hinted else None).success
                    for seed in seeds]
        finally:
            env.close()


class AgentProbe:
    """The agent model as a probe: every episode of a call in one batched run of the episode runner. Calls are
    serialised (one model serves concurrent validations)."""

    def __init__(self, backend: ModelBackend, config: RolloutConfig | None = None) -> None:
        from spade_core.models.base import SamplingParams
        from spade_core.rollout.specs import RolloutConfig

        self.backend = backend
        self.config = config or RolloutConfig(sampling=SamplingParams(max_new_tokens=48, temperature=1.0), seed=0)
        self._lock = threading.Lock()

    def successes(self, make_env: Callable[[], SpadeEnv], seeds: Sequence[int], *, hinted: bool) -> list[bool]:
        from spade_core.rollout.runner import EpisodeRunner
        from spade_core.rollout.specs import EpisodeSpec

        specs = [EpisodeSpec("candidate", seed, hinted=hinted, role="agent") for seed in seeds]
        with self._lock:
            runner = EpisodeRunner(self.backend, self.config, make_env=lambda spec: make_env())
            result = runner.run(specs)
        by_spec: dict[int, bool] = {}
        for trajectory in result.trajectories:
            if trajectory.seat == 0:
                by_spec[len(by_spec)] = bool(trajectory.success)
        return [by_spec.get(i, False) for i in range(len(specs))]


CHAT_PROBE_MAX_TOKENS = 1024
"""The served probe's answer budget per turn: enough for a program or a tool call, not only a short answer."""


@dataclass
class _ChatEpisode:
    """One episode a :class:`ChatProbe` plays: a conversation per seat, the latest observation and info."""

    env: SpadeEnv
    seed: int
    system: str
    obs: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    seats: dict[int, list[dict[str, str]]] = field(default_factory=dict)
    hint: str | None = None  # the reset's hint, shown once with the first turn of a hinted episode
    turns: int = 0
    over: bool = False

    @property
    def seat(self) -> int:
        player = self.info.get("player_id", 0)
        return player if isinstance(player, int) and not isinstance(player, bool) else 0

    def conversation(self) -> list[dict[str, str]]:
        """The acting seat's conversation with the new observation (and the hint on the episode's first turn)."""
        from spade_core.rollout.specs import HINT_TEMPLATE, with_hint

        content = self.obs
        if self.hint is not None:
            content, self.hint = with_hint(content, HINT_TEMPLATE.format(hint=self.hint), "user"), None
        messages = self.seats.setdefault(self.seat, [{"role": "system", "content": self.system}])
        messages.append({"role": "user", "content": content})
        return messages


class ChatProbe:
    """A served model as a probe, through its chat endpoint (the path the served designer uses): every live episode
    of a call is one conversation per seat, all advanced together, one ``chat`` request per episode and turn. The
    system text, the hint template and its placement are the episode runner's defaults, so the probe reads what the
    agent reads. A failed request ends its episode unsolved. Calls are serialised, as for :class:`AgentProbe`."""

    def __init__(self, backend: ModelBackend, params: SamplingParams | None = None) -> None:
        from spade_core.models.base import SamplingParams

        self.backend = backend
        self.params = params or SamplingParams(max_new_tokens=CHAT_PROBE_MAX_TOKENS, temperature=1.0)
        self._lock = threading.Lock()

    def successes(self, make_env: Callable[[], SpadeEnv], seeds: Sequence[int], *, hinted: bool) -> list[bool]:
        episodes = [self._start(make_env(), seed, hinted) for seed in seeds]
        try:
            with self._lock:
                while live := [e for e in episodes if not e.over]:
                    generations = self.backend.chat([e.conversation() for e in live], self.params)
                    for episode, generation in zip(live, generations, strict=True):
                        self._answer(episode, generation.text if generation.finish_reason != "error" else None)
            return [bool(e.info.get("success")) for e in episodes]
        finally:
            for episode in episodes:
                episode.env.close()

    @staticmethod
    def _start(env: SpadeEnv, seed: int, hinted: bool) -> _ChatEpisode:
        from spade_core.rollout.specs import DEFAULT_SYSTEM_PROMPT

        description = env.unwrapped.manifest.description
        system = DEFAULT_SYSTEM_PROMPT.format(role="agent", description=description, env_id="candidate").strip()
        episode = _ChatEpisode(env, seed, system)
        try:
            episode.obs, episode.info = env.reset(seed=seed, options={HINT_OPTION: True} if hinted else None)
        except Exception:  # a reset that fails is an unsolved episode; the other stages report why
            episode.over = True
            return episode
        hint = episode.info.get(HINT_OPTION)
        episode.hint = hint if hinted and isinstance(hint, str) else None
        return episode

    @staticmethod
    def _answer(episode: _ChatEpisode, text: str | None) -> None:
        """Step the episode with the model's text (None: the request failed, so the episode ends unsolved)."""
        if text is None:
            episode.over, episode.info = True, {}
            return
        episode.seats[episode.seat].append({"role": "assistant", "content": text})
        try:
            episode.obs, _, terminated, truncated, episode.info = episode.env.step(text)
        except Exception:  # a step that fails ends the episode unsolved
            episode.over, episode.info = True, {}
            return
        episode.turns += 1
        episode.over = terminated or truncated or episode.turns >= episode.env.unwrapped.manifest.max_turns


def probe_from_spec(spec: str) -> AgentProbe | ChatProbe:
    """A probe model from any model spec (``spade_core.models.spec``). A served model (``openai:MODEL@URL``) plays
    through its chat endpoint, text in and text out (:class:`ChatProbe`); a local model plays as the agent does,
    through the episode runner (:class:`AgentProbe`). Raises the spec's own error when it cannot be loaded or cannot
    play."""
    from spade_core.models.errors import ModelSpecError
    from spade_core.plugins.backends import load_backend

    backend = load_backend(spec)
    if backend.name == "openai":
        return ChatProbe(backend)
    if getattr(backend, "tokenizer", None) is None:
        raise ModelSpecError(f"the probe model {spec!r} has no local tokenizer, so it cannot play episodes token in, "
                             "token out; give a local model directory, a tiny:<dir> spec or a served "
                             "openai:MODEL@URL spec")
    return AgentProbe(backend)


def as_probe(probe: Policy | CalibrationProbe) -> CalibrationProbe:
    return probe if isinstance(probe, CalibrationProbe) else PolicyProbe(probe)


def candidate_envs(c: Candidate) -> EnvFactory:
    """The candidate's instance factory, made here when the stages that made it ran in another process (Ray)."""
    if c.envs is None:
        assert c.manifest is not None
        env_id = f"candidate:{c.manifest.name}"
        c.envs = EnvFactory(c.manifest, c.handle_factory_for(c.source, env_id), env_id)
    return c.envs


def check_calibration(c: Candidate) -> StageResult:
    """The probe plays the same seeds unhinted, hinted and hint-only (:mod:`.probe`); all three rates are reported
    whatever the verdict."""
    if c.probe is None:
        return StageResult("calibration", Verdict.SKIPPED, "no probe model given, so these went unchecked: "
                           + "; ".join(UNCHECKED) + " (and whether the task is trivial or impossible for an agent); "
                           "pass --probe MODEL to `spade validate` or validation.probe in self-play")
    thresholds = c.config.probe
    seeds = [CALIBRATION_SEED_BASE + i for i in range(thresholds.episodes)]
    probe = as_probe(c.probe)
    envs = candidate_envs(c)
    started = time.perf_counter()
    hinted = probe.successes(envs, seeds, hinted=True)
    plain = probe.successes(envs, seeds, hinted=False)
    alone = probe.successes(lambda: HintOnly(envs()), seeds, hinted=True)
    p_hint, p_plain, p_alone = float(np.mean(hinted)), float(np.mean(plain)), float(np.mean(alone))
    details = {"p_hint": p_hint, "p_nohint": p_plain, "p_hint_only": p_alone, "seeds": seeds,
               PROBE_SECONDS: round(time.perf_counter() - started, 4)}
    rates = f"(unhinted {p_plain:.0%}, hinted {p_hint:.0%}, hint-only {p_alone:.0%} over {len(seeds)} seeds)"
    if p_hint <= thresholds.impossible_below:
        c.outcome_status = Status.IMPOSSIBLE
        return StageResult("calibration", Verdict.FAILED,
                           f"the probe agent solved {sum(hinted)} of {len(seeds)} seeds even with the hint "
                           f"({p_hint:.0%}, at or below {thresholds.impossible_below:.0%}): impossible for it {rates}",
                           ["the task is too hard or broken for the current agent"],
                           ["make it easier (lower the difficulty default) or the hint more useful"], details=details)
    if p_alone >= thresholds.hint_only_min and p_alone >= thresholds.hint_only_share * p_hint:
        return StageResult("calibration", Verdict.FAILED,
                           f"the probe solved {sum(alone)} of {len(seeds)} seeds from the hint alone, without "
                           f"seeing the task: the hint carries the answer {rates}",
                           ["the hint states or encodes the answer (in any encoding the probe reads)"],
                           ["hint at a plan, a rule or an intermediate result that is useless without the task"],
                           details=details)
    if p_plain >= thresholds.trivial_above:
        c.outcome_status = Status.TRIVIAL
        return StageResult("calibration", Verdict.FAILED,
                           f"the probe agent solved {sum(plain)} of {len(seeds)} seeds without the hint "
                           f"({p_plain:.0%}, at or above {thresholds.trivial_above:.0%}): trivial for it {rates}",
                           ["the task is too easy"], ["make it harder so that the hint matters"], details=details)
    if p_plain == 0 and p_hint >= thresholds.hidden_hinted_above:
        c.outcome_status = Status.IMPOSSIBLE
        return StageResult("calibration", Verdict.FAILED,
                           f"the probe never solved a seed without the hint but solved {sum(hinted)} of "
                           f"{len(seeds)} with it: the hint is the only way in {rates}",
                           ["a fact or convention the answer needs is given only in the hint", "feedback that "
                            "never narrows the answer down"],
                           ["state every fact and convention the answer depends on in the task; keep the hint a "
                            "shortcut, not the only source"], details=details)
    return StageResult("calibration", Verdict.PASSED, f"hinted {p_hint:.0%} vs unhinted {p_plain:.0%}, hint-only "
                       f"{p_alone:.0%}", details=details)
