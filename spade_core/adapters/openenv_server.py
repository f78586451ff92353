"""``spade serve``: registry environments behind OpenEnv's own server (HTTP and WebSocket, ``/schema``, ``/health``).

Each WebSocket session gets its own :class:`SpadeOpenEnv`; OpenEnv caps how many run at once and reaps sessions idle
past the timeout. ``reset(seed, env_id, hint)`` starts an episode; ``step({"action": ...})`` plays one learner move
under the server's per-step time limit (``ServeConfig.step_timeout_s``: a client's ``timeout_s`` is ignored, so no
client can make the server abandon work early). A step past the limit ends the episode with an error observation;
its thread runs on, counted as *abandoned* until it returns, and its episode is closed then. At
``max_abandoned_steps`` abandoned steps (over all sessions) new resets and steps are refused until some finish.
A request body or WebSocket message over :data:`~spade_core.adapters.serve_settings.MAX_MESSAGE_BYTES` (the largest
action, JSON-escaped) is refused while it is read, and at most ``max_concurrent_requests`` HTTP requests run at once.
Only the observation, reward, done flag and public ``info`` keys leave the server: no route or field exposes the
privileged hint outside a hinted episode's observation, the reference solver or the verifier.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from openenv.core.env_server import Environment, HTTPEnvServer
from openenv.core.env_server.types import Action, ConcurrencyConfig, Observation, State
from pydantic import Field

from spade_core import __version__
from spade_core.adapters.request_limits import RequestLimits
from spade_core.adapters.serve_settings import MAX_ACTION_CHARS, MAX_MESSAGE_BYTES, ServeConfig
from spade_core.adapters.session import EpisodeSession, SessionError, StepOutcome

ENV_NAME = "spade"


class SpadeAction(Action):
    """The learner's action text."""

    action: str = Field(..., max_length=MAX_ACTION_CHARS, description="the action, as the observation asks for it")


class SpadeObservation(Observation):
    """What the learner sees: the observation text (with the hint in a hinted episode) and public step info."""

    text: str = Field(default="", description="the observation shown to the learner")
    env_id: str | None = Field(default=None, description="the environment being played")
    success: bool = Field(default=False, description="whether the episode was solved (final once done)")
    error: str | None = Field(default=None, description="why the request could not be played, if it could not")


class SpadeState(State):
    """The session's episode: which environment, seed and hint setting, and how many learner turns so far."""

    env_id: str | None = None
    seed: int | None = None
    hinted: bool = False
    done: bool = True


class ServerBusy(SessionError):
    """Too many abandoned steps are still running: the server refuses new work until some finish."""


class AbandonedSteps:
    """Steps that ran past the server's limit and still hold their threads, over every session of one server."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._running = 0
        self._lock = threading.Lock()

    @property
    def running(self) -> int:
        return self._running

    def check(self) -> None:
        if self._running >= self.cap:
            raise ServerBusy(f"the server has {self._running} steps still running past their time limit (cap "
                             f"{self.cap}, ServeConfig.max_abandoned_steps); try again later")

    def abandon(self, future: Future[Any], session: EpisodeSession, executor: ThreadPoolExecutor) -> None:
        """Count ``future`` until it returns; then close its episode and its thread."""
        with self._lock:
            self._running += 1

        def finished(_: Future[Any]) -> None:
            try:
                session.close()
            except Exception:  # an abandoned episode's close must not kill the callback
                pass
            executor.shutdown(wait=False)
            with self._lock:
                self._running -= 1

        future.add_done_callback(finished)


class SpadeOpenEnv(Environment):
    """One session's SPADE episodes, served through OpenEnv."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig, abandoned: AbandonedSteps | None = None) -> None:
        super().__init__()
        self.config = config
        self.abandoned = abandoned if abandoned is not None else AbandonedSteps(config.max_abandoned_steps)
        self.allowed = frozenset(config.env_ids)
        self.session = EpisodeSession(learner_seat=config.learner_seat)
        self._episode_id: str | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spade-serve-step")
        self._lock = threading.Lock()

    def reset(self, seed: int | None = None, episode_id: str | None = None, env_id: str | None = None,
              hint: bool = False, **_: Any) -> SpadeObservation:
        chosen = env_id or (self.config.env_ids[0] if len(self.config.env_ids) == 1 else None)
        if chosen is None or chosen not in self.allowed:
            return self._refused(f"reset needs env_id, one of {sorted(self.allowed)} (got {env_id!r})")
        with self._lock:
            try:
                text = self._timed(lambda: self.session.reset(chosen, int(seed or 0), hint=bool(hint)))
            except (SessionError, FutureTimeout) as err:
                return self._refused(_describe(err, self.config.step_timeout_s, "reset"))
            self._episode_id = episode_id
            return SpadeObservation(text=text, env_id=chosen, done=False, reward=0.0,
                                    metadata={**self.session.info, "seed": self.session.seed,
                                              "hinted": self.session.hinted})

    def step(self, action: SpadeAction, timeout_s: float | None = None, **_: Any) -> SpadeObservation:
        limit = self.config.step_timeout_s  # the server's limit; a client's timeout_s never lowers it
        with self._lock:
            try:
                outcome: StepOutcome = self._timed(lambda: self.session.step(action.action), limit)
            except (SessionError, FutureTimeout) as err:
                return self._refused(_describe(err, limit, "step"))
            return SpadeObservation(text=outcome.observation, env_id=self.session.env_id, done=outcome.done,
                                    reward=outcome.reward, success=outcome.success, metadata=outcome.info)

    @property
    def state(self) -> SpadeState:
        s = self.session
        return SpadeState(episode_id=self._episode_id, step_count=s.turns, env_id=s.env_id, seed=s.seed,
                          hinted=s.hinted, done=s.done)

    def close(self) -> None:
        self.session.close()
        self._worker.shutdown(wait=False, cancel_futures=True)

    # -- helpers ------------------------------------------------------------------------------------------
    def _timed(self, call: Callable[[], Any], limit: float | None = None) -> Any:
        """Run ``call`` on this session's worker thread; past ``limit`` the episode is abandoned (a stuck step
        keeps its thread until it returns, counted in :class:`AbandonedSteps`, which closes its episode then; the
        session gets a fresh thread and episode)."""
        self.abandoned.check()
        future = self._worker.submit(call)
        try:
            return future.result(timeout=limit or self.config.step_timeout_s)
        except FutureTimeout:
            self.abandoned.abandon(future, self.session, self._worker)
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spade-serve-step")
            self.session = EpisodeSession(learner_seat=self.config.learner_seat)
            raise

    def _refused(self, why: str) -> SpadeObservation:
        return SpadeObservation(text="", env_id=self.session.env_id, done=True, reward=0.0, error=why)


def _describe(err: BaseException, limit: float, what: str) -> str:
    if isinstance(err, FutureTimeout):
        return f"the {what} took longer than {limit:g} s; the episode was ended (reset to play again)"
    return str(err)


@dataclass
class SpadeServer:
    """The FastAPI app to serve (with uvicorn) and OpenEnv's session manager behind it."""

    app: Any
    sessions: HTTPEnvServer
    abandoned: AbandonedSteps

    @property
    def active_sessions(self) -> int:
        return self.sessions.active_sessions


def build_server(config: ServeConfig) -> SpadeServer:
    """OpenEnv's server over SPADE environments: HTTP and WebSocket routes, ``/schema``, ``/health``."""
    if not config.env_ids:
        raise SessionError("spade serve needs at least one environment (ids, --domain or --tag)")
    abandoned = AbandonedSteps(config.max_abandoned_steps)
    sessions = HTTPEnvServer(
        lambda: SpadeOpenEnv(config, abandoned), SpadeAction, SpadeObservation, env_name=ENV_NAME, state_cls=SpadeState,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=config.max_sessions,
                                             session_timeout=config.idle_timeout_s),
    )
    app = FastAPI(title="SPADE environments (OpenEnv)", version=__version__)
    sessions.register_routes(app)
    limited = RequestLimits(app, max_body_bytes=MAX_MESSAGE_BYTES, max_concurrent=config.max_concurrent_requests)
    return SpadeServer(limited, sessions, abandoned)
