"""``spade serve``: registry environments behind OpenEnv's own server (HTTP and WebSocket, ``/schema``, ``/health``).

Each WebSocket session gets its own :class:`SpadeOpenEnv`; OpenEnv caps how many run at once and reaps sessions idle
past the timeout. ``reset(seed, env_id, hint)`` starts an episode; ``step({"action": ...})`` plays one learner move
under the server's per-step time limit (``ServeConfig.step_timeout_s``: a client's ``timeout_s`` is ignored, so no
client can make the server abandon work early). A step past the limit ends the episode with an error observation;
its thread runs on, counted as *abandoned* until it returns, and its episode is closed then. A client with
``max_abandoned_steps`` abandoned steps has its new resets and steps refused until some finish.
Resets and steps share ``worker_slots`` threads fairly between clients (:mod:`~spade_core.adapters.admission`: a
session holds no thread while idle, a client holds at most ``steps_per_client`` slots and ``sessions_per_client``
WebSocket sessions, and a step that waits ``queue_timeout_s`` for a slot is refused with "busy, retry after").
A request body or WebSocket message over :data:`~spade_core.adapters.serve_settings.MAX_MESSAGE_BYTES` (the largest
action, JSON-escaped) is refused while it is read, and at most ``max_concurrent_requests`` HTTP requests run at once.
Only the observation, reward, done flag and public ``info`` keys leave the server: no route or field exposes the
privileged hint outside a hinted episode's observation, the reference solver or the verifier.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
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
from spade_core.adapters.admission import Admission, ServerBusy, current_client
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


class AbandonedSteps:
    """Steps that ran past the server's limit and still hold their threads (and worker slots), counted per client."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._running: Counter[str] = Counter()
        self._lock = threading.Lock()

    @property
    def running(self) -> int:
        return sum(self._running.values())

    def check(self, client: str) -> None:
        if self._running[client] >= self.cap:
            raise ServerBusy(f"this client has {self._running[client]} steps still running past their time limit "
                             f"(cap {self.cap} per client, ServeConfig.max_abandoned_steps); retry after they end",
                             retry_after_s=0.0)

    def abandon(self, client: str, future: Future[Any], session: EpisodeSession) -> None:
        """Count ``future`` against ``client`` until it returns; then close its episode."""
        with self._lock:
            self._running[client] += 1

        def finished(_: Future[Any]) -> None:
            try:
                session.close()
            except Exception:  # an abandoned episode's close must not kill the callback
                pass
            with self._lock:
                self._running[client] -= 1
                if self._running[client] <= 0:
                    del self._running[client]

        future.add_done_callback(finished)


@dataclass
class StepWorkers:
    """What every session of one server shares: the worker threads, who may use them, and abandoned steps."""

    admission: Admission
    threads: ThreadPoolExecutor
    abandoned: AbandonedSteps

    @classmethod
    def for_config(cls, config: ServeConfig) -> StepWorkers:
        return cls(Admission(config.worker_slots, config.steps_per_client, config.queue_timeout_s),
                   ThreadPoolExecutor(max_workers=config.worker_slots, thread_name_prefix="spade-serve-step"),
                   AbandonedSteps(config.max_abandoned_steps))

    async def run(self, client: str, call: Callable[[], Any], limit: float) -> Future[Any]:
        """Run ``call`` in a worker slot of ``client``'s; the returned future is done unless ``limit`` passed first
        (then the work runs on, holding its slot until it returns)."""
        self.abandoned.check(client)
        await self.admission.acquire(client)
        try:
            future = self.threads.submit(call)
        except BaseException:
            self.admission.release(client)
            raise
        try:
            await asyncio.wait({asyncio.wrap_future(future)}, timeout=limit)
        finally:  # work done in time gives its slot back here, on the loop; abandoned work when its thread returns
            if future.done():
                self.admission.release(client)
            else:
                future.add_done_callback(lambda _: self.admission.release(client))
        return future


class SpadeOpenEnv(Environment):
    """One session's SPADE episodes, served through OpenEnv. The session holds no thread while idle: each reset and
    step takes a worker slot from :class:`StepWorkers` and gives it back when its work returns."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig, workers: StepWorkers | None = None) -> None:
        super().__init__()
        self.config = config
        self.workers = workers if workers is not None else StepWorkers.for_config(config)
        self.allowed = frozenset(config.env_ids)
        self.session = EpisodeSession(learner_seat=config.learner_seat)
        self._episode_id: str | None = None

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, env_id: str | None = None,
                          hint: bool = False, **_: Any) -> SpadeObservation:
        chosen = env_id or (self.config.env_ids[0] if len(self.config.env_ids) == 1 else None)
        if chosen is None or chosen not in self.allowed:
            return self._refused(f"reset needs env_id, one of {sorted(self.allowed)} (got {env_id!r})")
        session = self.session
        try:
            text = await self._timed(lambda: session.reset(chosen, int(seed or 0), hint=bool(hint)))
        except (SessionError, FutureTimeout) as err:
            return self._refused(_describe(err, self.config.step_timeout_s, "reset"), err)
        self._episode_id = episode_id
        return SpadeObservation(text=text, env_id=chosen, done=False, reward=0.0,
                                metadata={**session.info, "seed": session.seed, "hinted": session.hinted})

    async def step_async(self, action: SpadeAction, timeout_s: float | None = None, **_: Any) -> SpadeObservation:
        session = self.session  # the server's limit applies; a client's timeout_s never lowers it
        try:
            outcome: StepOutcome = await self._timed(lambda: session.step(action.action))
        except (SessionError, FutureTimeout) as err:
            return self._refused(_describe(err, self.config.step_timeout_s, "step"), err)
        return SpadeObservation(text=outcome.observation, env_id=session.env_id, done=outcome.done,
                                reward=outcome.reward, success=outcome.success, metadata=outcome.info)

    def reset(self, seed: int | None = None, episode_id: str | None = None, env_id: str | None = None,
              hint: bool = False, **_: Any) -> SpadeObservation:
        return asyncio.run(self.reset_async(seed, episode_id, env_id, hint))

    def step(self, action: SpadeAction, timeout_s: float | None = None, **_: Any) -> SpadeObservation:
        return asyncio.run(self.step_async(action, timeout_s))

    @property
    def state(self) -> SpadeState:
        s = self.session
        return SpadeState(episode_id=self._episode_id, step_count=s.turns, env_id=s.env_id, seed=s.seed,
                          hinted=s.hinted, done=s.done)

    def close(self) -> None:
        self.session.close()

    # -- helpers ------------------------------------------------------------------------------------------
    async def _timed(self, call: Callable[[], Any]) -> Any:
        """Run ``call`` in a worker slot under the step limit; past it the episode is abandoned (its work keeps
        its slot until it returns, counted in :class:`AbandonedSteps`, which closes its episode then; the session
        gets a fresh episode)."""
        client = current_client.get()
        future = await self.workers.run(client, call, self.config.step_timeout_s)
        if future.done():
            return future.result()
        self.workers.abandoned.abandon(client, future, self.session)
        self.session = EpisodeSession(learner_seat=self.config.learner_seat)
        raise FutureTimeout

    def _refused(self, why: str, err: BaseException | None = None) -> SpadeObservation:
        retry = {"retry_after_s": err.retry_after_s} if isinstance(err, ServerBusy) else {}
        return SpadeObservation(text="", env_id=self.session.env_id, done=True, reward=0.0, error=why,
                                metadata=retry)


def _describe(err: BaseException, limit: float, what: str) -> str:
    if isinstance(err, FutureTimeout):
        return f"the {what} took longer than {limit:g} s; the episode was ended (reset to play again)"
    return str(err)


@dataclass
class SpadeServer:
    """The FastAPI app to serve (with uvicorn) and OpenEnv's session manager behind it."""

    app: RequestLimits
    sessions: HTTPEnvServer
    workers: StepWorkers

    @property
    def abandoned(self) -> AbandonedSteps:
        return self.workers.abandoned

    @property
    def active_sessions(self) -> int:
        return self.sessions.active_sessions

    @property
    def open_sockets(self) -> int:
        """WebSocket connections the per-client quota counts now (a closed one is released after its session)."""
        return sum(self.app.sockets.values())


def build_server(config: ServeConfig) -> SpadeServer:
    """OpenEnv's server over SPADE environments: HTTP and WebSocket routes, ``/schema``, ``/health``."""
    if not config.env_ids:
        raise SessionError("spade serve needs at least one environment (ids, --domain or --tag)")
    workers = StepWorkers.for_config(config)
    sessions = HTTPEnvServer(
        lambda: SpadeOpenEnv(config, workers), SpadeAction, SpadeObservation, env_name=ENV_NAME, state_cls=SpadeState,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=config.max_sessions,
                                             session_timeout=config.idle_timeout_s),
    )
    app = FastAPI(title="SPADE environments (OpenEnv)", version=__version__)
    sessions.register_routes(app)
    limited = RequestLimits(app, max_body_bytes=MAX_MESSAGE_BYTES, max_concurrent=config.max_concurrent_requests,
                            sessions_per_client=config.sessions_per_client)
    return SpadeServer(limited, sessions, workers)
