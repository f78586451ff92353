"""The designer loop: document -> prompt -> environment code -> validation -> repair -> memory.

Every attempt is recorded in the registry store with its report (the environment memory keeps failures as well as
successes). A backend that serves requests concurrently (a served model: it has ``max_concurrency``) gets them
pipelined: each candidate's repair is requested as soon as its own validation fails, while the other candidates'
requests are still in flight, at most ``max_concurrency`` at once (so a slow answer holds up no other candidate).
Any other backend (a local model that batches) gets rounds: all first attempts in one call, then all repairs.

A run may be given a :class:`~spade_core.deadlines.Deadline`, checked before every request (a round, or one
candidate's attempt when pipelined): past it no candidate and no repair attempt starts; what was already requested
is validated and recorded, and candidates that never got an attempt are left out of the result (``not_started``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from spade_core import seeding
from spade_core.corpora.topics import topic_weights_for
from spade_core.deadlines import NO_DEADLINE, Deadline
from spade_core.designer.budget import cut_note, resolve_budget
from spade_core.designer.domain_material import domain_guidance, importable_modules, worked_example_sources
from spade_core.designer.parsing import ExtractionError, extract_module
from spade_core.designer.prompts import DesignRequest, MemoryExample, build_messages, repair_messages
from spade_core.errors import SpadeError, StoreError
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.models.base import Generation, ModelBackend, SamplingParams
from spade_core.plugins.domains import get_domain
from spade_core.typed_config import require
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.calibration import AgentProbe
from spade_core.validation.candidate import CalibrationProbe
from spade_core.validation.config import DESIGN_VALIDATION
from spade_core.validation.pipeline import record_outcome
from spade_core.validation.report import StageResult, ValidationReport, Verdict
from spade_registry.gate import STORE_STAGE
from spade_registry.hashing import content_hash
from spade_registry.records import Status, Trust

EXTRACTION_STAGE = "extraction"
CLOSING_FENCE = "\n```\n"  # the end of a fenced block; an opening fence carries a language name after the backticks


class DesignConfigError(SpadeError, ValueError):
    """A designer knob is out of range; the message names the field and what it accepts."""


@dataclass(frozen=True)
class DesignKnobs:
    """The knobs of one designer run that a user sets (the self-play ``designer`` section holds them)."""

    max_repairs: int = 1  # repair rounds a rejected candidate gets (the validator's message)
    max_new_tokens: int | None = None  # None: sized from the domain's worked examples (spade_core.designer.budget)
    temperature: float = 0.8  # the designer's sampling temperature
    top_p: float = 0.95  # the designer's nucleus-sampling mass
    neighbours: int = 3  # accepted pool environments of the domain shown in the prompt (nearest to the document)
    failures: int = 3  # past rejected attempts of the domain shown in the prompt, with why they failed
    worked_example: bool = True  # show one seed environment's full code in the prompt
    validation_workers: int = 2  # candidates validated at once (when the run does not hand validation elsewhere)
    # opt-in: the agent plays each candidate as the calibration stage's probe. Off by default: the paired rollouts
    # measure the same thing after acceptance, and an agent that cannot yet solve anything would reject every
    # environment as impossible (a 135M agent on a CPU also takes minutes per candidate)
    calibrate: bool = False
    max_document_chars: int = 1200  # the grounding document's characters shown in the prompt
    grounding: bool = True  # False: no corpus document in the prompt nor in the grounding stage
    # stop a completion at the first "\n```\n" (no tokens spent on prose after the block). Off by default: a module
    # whose string literals hold a fenced block (a code task's reply format) would be cut inside the string.
    stop_at_code_end: bool = False

    def __post_init__(self) -> None:
        checks = [(self.max_repairs >= 0, "max_repairs must be >= 0"),
                  (self.max_new_tokens is None or self.max_new_tokens >= 1, "max_new_tokens must be >= 1 or None"),
                  (self.temperature >= 0, "temperature must be >= 0"), (0 < self.top_p <= 1, "top_p must be in (0, 1]"),
                  (self.neighbours >= 0, "neighbours must be >= 0"), (self.failures >= 0, "failures must be >= 0"),
                  (self.validation_workers >= 1, "validation_workers must be >= 1"),
                  (self.max_document_chars >= 0, "max_document_chars must be >= 0")]
        require(self, checks, DesignConfigError)


@dataclass(frozen=True)
class DesignConfig(DesignKnobs):
    """Every knob of one designer run: the user's knobs, the domain it writes for and its seed."""

    domain: str = field(kw_only=True)  # a loaded domain's name (spade_core.plugins.domains)
    seed: int = 0  # self-play derives it per iteration from the run's seed (spade_core.seeding.designer_seed)


@dataclass
class Attempt:
    """One generation for one candidate: what was written and what the validator said."""

    messages: list[dict[str, str]]
    generation: Generation
    source: str | None
    report: ValidationReport
    seconds: float
    cut_at: int | None = None  # the token limit the completion ran into, if it did

    @property
    def cut(self) -> bool:
        return self.cut_at is not None


@dataclass
class CandidateResult:
    """One candidate environment across its attempts (the first and its repairs)."""

    index: int
    doc_id: str
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]

    @property
    def accepted(self) -> bool:
        return self.final.report.accepted

    @property
    def status(self) -> str:
        report = self.final.report
        return "accepted" if report.accepted else (report.failed_stage or report.status)

    @property
    def tokens(self) -> int:
        return sum(a.generation.num_tokens for a in self.attempts)


@dataclass
class DesignResult:
    candidates: list[CandidateResult]  # every candidate that got at least one attempt
    seconds: float
    not_started: int = 0  # candidates the deadline kept from their first attempt

    def summary(self) -> dict[str, Any]:
        accepted = [c for c in self.candidates if c.accepted]
        stages: dict[str, int] = {}
        for c in self.candidates:
            if not c.accepted:
                stages[c.status] = stages.get(c.status, 0) + 1
        tokens = sum(c.tokens for c in self.candidates)
        return {
            "candidates": len(self.candidates), "accepted": len(accepted), "rejected_by_stage": stages,
            "duplicates": sum(1 for c in self.candidates if c.final.report.status == Status.DUPLICATE),
            "attempts": sum(len(c.attempts) for c in self.candidates),
            "cut_at_token_limit": sum(1 for c in self.candidates for a in c.attempts if a.cut),
            "repairs_per_accepted": (sum(len(c.attempts) - 1 for c in accepted) / len(accepted)) if accepted else None,
            "tokens": tokens, "tokens_per_accepted": tokens / len(accepted) if accepted else None,
            "seconds": self.seconds, "seconds_per_accepted": self.seconds / len(accepted) if accepted else None,
            "accepted_ids": [c.final.report.env_id for c in accepted],
        }


def _extraction_report(completion: str, error: ExtractionError) -> ValidationReport:
    report = ValidationReport(file="<completion>", content_hash=content_hash(completion), status=Status.FAILED)
    report.stages.append(StageResult(EXTRACTION_STAGE, Verdict.FAILED, str(error), ["the answer is not one code block"],
                                     ["reply with exactly one ```python block holding the whole module"]))
    return report


class Designer:
    """Writes environments for one domain with a model, validates them, repairs failures, and stores everything."""

    def __init__(self, backend: ModelBackend, corpus: Any, store: Any, *, memory: Any = None,
                 config: DesignConfig, validation: ValidationConfig | None = None,
                 validate: Callable[..., list[ValidationReport]] = validate_many,
                 probe: CalibrationProbe | None = None) -> None:
        """``validate`` runs the pipeline over a round's candidates (``validate_many``'s contract; e.g. Ray tasks).
        ``probe`` plays candidates in the calibration stage (default: this backend as the agent, if
        ``config.calibrate``)."""
        self.backend = backend
        self.corpus = corpus
        self.store = store
        self.memory = memory
        self.config = config
        self.validation = validation or DESIGN_VALIDATION
        self.validate = validate
        self._domain = get_domain(self.config.domain)
        self._guidance, self._examples = domain_guidance(self._domain), worked_example_sources(self._domain)
        self._example = self._examples[0] if self._examples else ""
        self.max_new_tokens = resolve_budget(self.config.max_new_tokens, self._examples)
        self._modules = importable_modules(self._domain)
        self.generate_seconds = 0.0
        self.validate_seconds = 0.0
        self._behaviour: BehaviourIndex | None = None
        self._lock = threading.Lock()  # counters and the novelty index, shared by pipelined candidates
        # the calibration stage's probe: this model playing the candidate as the agent (hinted and not); a served
        # model without a local tokenizer cannot play token-in/token-out episodes, so it calibrates nothing
        playable = getattr(backend, "tokenizer", None) is not None
        self.probe = probe if probe is not None else AgentProbe(backend) if self.config.calibrate and playable else None

    # -- prompt material ---------------------------------------------------------------------------------------
    def _memory_examples(self, text: str) -> tuple[list[MemoryExample], list[MemoryExample]]:
        cfg = self.config
        if self.memory is None:
            return [], []
        good = self.memory.records(self.memory.accepted_neighbours(text, cfg.neighbours, domain=cfg.domain)
                                   ) if cfg.neighbours > 0 else []
        bad = self.memory.records(self.memory.failed_neighbours(text, cfg.failures, domain=cfg.domain)
                                  ) if cfg.failures > 0 else []
        neighbours = [MemoryExample(r.name, str(r.manifest.get("description", ""))[:200]) for r in good]
        failures = [MemoryExample(r.name, _failure_note(r)) for r in bad]
        return neighbours, failures

    def messages_for(self, document: Any) -> list[dict[str, str]]:
        neighbours, failures = self._memory_examples(f"{document.title}. {document.text[:500]}")
        grounded = self.config.grounding
        request = DesignRequest(
            domain=self.config.domain, guidance=self._guidance, document_title=document.title if grounded else "",
            document_text=document.text if grounded else "", allowed_modules=self._modules,
            worked_example=self._example if self.config.worked_example else "", neighbours=neighbours,
            failures=failures, max_document_chars=self.config.max_document_chars,
        )
        return build_messages(request)

    def _novelty(self) -> BehaviourIndex:
        """Stored environments' behaviour (bundled seeds included), for the novelty stage; brought up to date here,
        before the round's candidates are validated, so fingerprinting stored records (seconds on a fresh store)
        is not charged to the first candidate's novelty stage and its time budget."""
        with self._lock:
            if self._behaviour is None:
                self._behaviour = BehaviourIndex(self.store)
        self._behaviour.refresh()  # thread-safe
        return self._behaviour

    # -- the loop ----------------------------------------------------------------------------------------------
    def design(self, n: int, *, seed: int | None = None, progress: Callable[[str, int], None] | None = None,
               documents: Sequence[Any] | None = None, deadline: Deadline = NO_DEADLINE) -> DesignResult:
        """Write ``n`` candidates (plus bounded repairs); every attempt is validated and stored. Past ``deadline``
        no candidate or repair attempt starts."""
        started = time.perf_counter()
        seed = self.config.seed if seed is None else seed
        if documents is None:
            documents = self._sample_documents(n, seed)
        candidates = [CandidateResult(i, d.doc_id) for i, d in enumerate(documents)]
        pending = [(c, d, self.messages_for(d)) for c, d in zip(candidates, documents, strict=True)]
        concurrency = self.pipelined_concurrency()
        if concurrency > 1 and len(pending) > 1:
            self._design_pipelined(pending, seed, concurrency, progress, deadline)
        else:
            self._design_in_rounds(pending, seed, progress, deadline)
        started_ones = [c for c in candidates if c.attempts]
        return DesignResult(started_ones, time.perf_counter() - started, len(candidates) - len(started_ones))

    def pipelined_concurrency(self) -> int:
        """Requests in flight at once when the backend serves them concurrently (its ``max_concurrency``), else 1
        (rounds)."""
        limit = getattr(self.backend, "max_concurrency", None)
        return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 1 else 1

    def _params(self, seed: int, round_index: int) -> SamplingParams:
        return SamplingParams(max_new_tokens=self.max_new_tokens, temperature=self.config.temperature,
                              top_p=self.config.top_p, seed=seeding.round_seed(seed, round_index),
                              stop=(CLOSING_FENCE,) if self.config.stop_at_code_end else ())

    def _next(self, candidate: CandidateResult, document: Any, messages: list[dict[str, str]], attempt: Attempt,
              round_index: int) -> tuple[Any, Any, list[dict[str, str]]] | None:
        """Record ``attempt``; the repair request to send next, or None when the candidate is done."""
        candidate.attempts.append(attempt)
        report = attempt.report
        if report.accepted or report.status == Status.DUPLICATE or round_index >= self.config.max_repairs:
            return None
        return candidate, document, repair_messages(messages, attempt.generation.text, report.repair_message())

    def _design_in_rounds(self, pending: list[tuple[Any, Any, list[dict[str, str]]]], seed: int,
                          progress: Callable[[str, int], None] | None, deadline: Deadline) -> None:
        """All first attempts in one call, validated together, then all repairs in one call, ... (until
        ``deadline``)."""
        for round_index in range(self.config.max_repairs + 1):
            if not pending or deadline.expired():
                break
            if progress:
                progress("generate", len(pending))
            t0 = time.perf_counter()
            generations = self.backend.chat([m for _, _, m in pending], self._params(seed, round_index))
            elapsed = time.perf_counter() - t0
            self.generate_seconds += elapsed
            if progress:
                progress("validate", len(pending))
            attempts = self._validate_round(pending, generations, elapsed / max(1, len(pending)), round_index)
            pending = [step for (candidate, document, messages), attempt in zip(pending, attempts, strict=True)
                       if (step := self._next(candidate, document, messages, attempt, round_index)) is not None]

    def _design_pipelined(self, pending: list[tuple[Any, Any, list[dict[str, str]]]], seed: int, concurrency: int,
                          progress: Callable[[str, int], None] | None, deadline: Deadline) -> None:
        """Each candidate on its own: request, validate, repair at once; ``concurrency`` candidates in flight,
        ``validation_workers`` of them validating at once (no request starts past ``deadline``)."""
        validating = threading.Semaphore(max(1, self.config.validation_workers))

        def one(item: tuple[Any, Any, list[dict[str, str]]]) -> None:
            step: tuple[Any, Any, list[dict[str, str]]] | None = item
            round_index = 0
            while step is not None and not deadline.expired():
                candidate, document, messages = step
                if progress:
                    progress("generate", 1)
                t0 = time.perf_counter()
                [generation] = self.backend.chat([messages], self._params(seed, round_index))
                elapsed = time.perf_counter() - t0
                with self._lock:
                    self.generate_seconds += elapsed
                if progress:
                    progress("validate", 1)
                with validating:
                    [attempt] = self._validate_round([step], [generation], elapsed, round_index)
                step = self._next(candidate, document, messages, attempt, round_index)
                round_index += 1

        with ThreadPoolExecutor(max_workers=min(concurrency, len(pending)), thread_name_prefix="designer") as pool:
            for future in [pool.submit(one, item) for item in pending]:
                future.result()

    def _sample_documents(self, n: int, seed: int) -> list[Any]:
        weights = topic_weights_for(self.corpus, self._domain.topics)
        return list(self.corpus.sample(n, seed, topic_weights=weights))

    def _validate_round(self, pending: list[tuple[Any, Any, list[dict[str, str]]]], generations: list[Generation],
                        gen_seconds: float, round_index: int) -> list[Attempt]:
        sources: list[str | None] = []
        reports: dict[int, ValidationReport] = {}
        for i, generation in enumerate(generations):
            try:
                if generation.error:
                    raise ExtractionError(f"generation failed: {generation.error}")
                sources.append(extract_module(generation.text).source)
            except ExtractionError as error:
                sources.append(None)
                reports[i] = _extraction_report(generation.text, error)
        to_validate = [(i, s) for i, s in enumerate(sources) if s is not None]
        t0 = time.perf_counter()
        validated = self.validate(
            [(f"candidate-{pending[i][0].index}-attempt-{round_index}", s) for i, s in to_validate],
            workers=self.config.validation_workers, store=self.store, config=self.validation,
            memory=self._novelty(), probe=self.probe,
            documents=[pending[i][1].text if self.config.grounding else None for i, _ in to_validate],
        ) if to_validate else []
        with self._lock:
            self.validate_seconds += time.perf_counter() - t0
        val_seconds = (time.perf_counter() - t0) / max(1, len(to_validate))
        for (i, _), report in zip(to_validate, validated, strict=True):
            reports[i] = report
        attempts = []
        for i, ((candidate, document, messages), generation) in enumerate(zip(pending, generations, strict=True)):
            report = reports[i]
            cut_at = self._cut_at(generation)
            if cut_at is not None and not report.accepted:
                _mark_cut(report, cut_at)
            provenance = {"source": "designer", "domain": self.config.domain, "doc_id": document.doc_id,
                          "doc_title": document.title, "attempt": round_index, "candidate": candidate.index}
            self._record(sources[i], generation.text, report, provenance)
            attempts.append(Attempt(messages, generation, sources[i], report, gen_seconds + val_seconds, cut_at))
        return attempts

    def _cut_at(self, generation: Generation) -> int | None:
        """The token limit when ``generation`` ran into it (finish reason ``length`` or a full budget), else None."""
        if generation.finish_reason == "error":
            return None
        if generation.finish_reason == "length" or generation.num_tokens >= self.max_new_tokens:
            return generation.num_tokens or self.max_new_tokens
        return None

    def _record(self, source: str | None, completion: str, report: ValidationReport,
                provenance: dict[str, Any]) -> None:
        """Store the candidate; one the store refuses is marked failed at the ``store`` stage, the round goes on."""
        try:
            self._store_candidate(source, completion, report, provenance)
        except StoreError as exc:
            report.stages.append(StageResult(STORE_STAGE, Verdict.FAILED, observed=f"the store refused it: {exc}",
                                             fix=["keep ENV_SPEC values within the store's schema"],
                                             status=Status.FAILED))
            report.status = Status.FAILED
            report.env_id = None

    def _store_candidate(self, source: str | None, completion: str, report: ValidationReport,
                         provenance: dict[str, Any]) -> None:
        if source is None:
            self.store.add(code=completion, manifest={"domain": self.config.domain}, status=Status.FAILED,
                           trust=Trust.DESIGNER, failed_stage=EXTRACTION_STAGE, provenance=provenance,
                           report=report.to_dict())
            return
        record_outcome(self.store, source, report, provenance=provenance)


def _mark_cut(report: ValidationReport, tokens: int) -> None:
    """Say in the failed stage (so in the report, the store and the repair prompt) that the module was cut."""
    failed = next((s for s in report.stages if s.failed), None)
    if failed is None:
        return
    note = cut_note(tokens)
    failed.observed = f"the completion was {note}, so the module is incomplete: {failed.observed}"
    failed.causes = [f"the answer was {note} before the module ended", *failed.causes]
    failed.fix = ["write a more compact module (fewer, shorter helpers and data tables) that ends well within "
                  f"{tokens} tokens, with no prose before the code block", *failed.fix]
    failed.details["cut_at_token_limit"] = tokens


def _failure_note(record: Any) -> str:
    report = record.report or {}
    message = str(report.get("message", record.status_label)).splitlines()[0]
    return f"{record.status_label}: {message[:200]}"
