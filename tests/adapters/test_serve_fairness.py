"""``spade serve`` shares its worker slots fairly: the admission queue alone (order, quotas, the queue deadline), and
the server on localhost with hostile sessions sending slow actions while an honest client is still served in time."""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

openenv = pytest.importorskip("openenv", reason="spade serve needs openenv (pip install 'spade-rl[openenv]'); CI "
                              "installs it")

from fixture_envs import slow_action_env  # noqa: E402
from openenv.core.generic_client import GenericEnvClient  # noqa: E402
from test_openenv_server import GAME, start  # noqa: E402

import spade_core  # noqa: E402
from spade_core.adapters.admission import Admission, ServerBusy  # noqa: E402
from spade_core.adapters.openenv_server import ServeConfig  # noqa: E402
from spade_registry.records import Status, Trust  # noqa: E402
from spade_registry.store import RegistryStore  # noqa: E402

# -- the admission queue alone -----------------------------------------------------------------------------------


def test_a_freed_slot_goes_to_the_waiting_client_holding_fewest():
    async def scenario() -> list[str]:
        admission = Admission(slots=2, per_client=4, queue_timeout_s=5.0)
        for _ in range(2):
            await admission.acquire("hostile")
        order: list[str] = []

        async def wait(client: str) -> None:
            await admission.acquire(client)
            order.append(client)

        hostile = [asyncio.create_task(wait("hostile")) for _ in range(3)]
        await asyncio.sleep(0.01)
        honest = asyncio.create_task(wait("honest"))  # queued last, behind three hostile steps
        await asyncio.sleep(0.01)
        admission.release("hostile")  # it still holds one slot; the honest client holds none
        await honest
        for _ in range(3):
            admission.release(order[-1])
            await asyncio.sleep(0.01)
        await asyncio.gather(*hostile)
        return order

    assert asyncio.run(scenario()) == ["honest", "hostile", "hostile", "hostile"]


def test_a_queued_step_is_refused_at_the_queue_deadline_not_left_waiting():
    async def scenario() -> tuple[ServerBusy, float, int]:
        admission = Admission(slots=1, per_client=1, queue_timeout_s=0.2)
        await admission.acquire("a")
        started = time.monotonic()
        with pytest.raises(ServerBusy) as refused:
            await admission.acquire("b")
        waited = time.monotonic() - started
        admission.release("a")
        await admission.acquire("b")  # the refused waiter left the queue: the slot is free again
        return refused.value, waited, admission.in_use

    err, waited, in_use = asyncio.run(scenario())
    assert 0.15 < waited < 2.0
    assert "busy" in str(err) and "retry after 0.2 s" in str(err) and err.retry_after_s == pytest.approx(0.2)
    assert in_use == 1


def test_a_client_past_its_quota_waits_while_others_are_served():
    async def scenario() -> tuple[bool, int]:
        admission = Admission(slots=4, per_client=2, queue_timeout_s=0.2)
        for _ in range(2):
            await admission.acquire("greedy")
        await admission.acquire("other")  # two slots are free, but not for "greedy"
        with pytest.raises(ServerBusy):
            await admission.acquire("greedy")
        return admission.held("greedy"), admission.in_use

    assert asyncio.run(scenario()) == (2, 3)


def test_a_step_cancelled_while_queued_leaves_the_queue_and_gives_back_a_slot_granted_meanwhile():
    async def scenario() -> tuple[int, int, int]:
        admission = Admission(slots=1, per_client=1, queue_timeout_s=5.0)
        await admission.acquire("a")
        queued = asyncio.create_task(admission.acquire("b"))
        await asyncio.sleep(0.01)
        queued.cancel()  # the client went away while its step waited
        await asyncio.gather(queued, return_exceptions=True)
        left_queue = admission.queued
        granted_then_cancelled = asyncio.create_task(admission.acquire("c"))
        await asyncio.sleep(0.01)
        admission.release("a")  # the slot goes to "c", whose task is cancelled before it runs again
        granted_then_cancelled.cancel()
        await asyncio.gather(granted_then_cancelled, return_exceptions=True)
        return left_queue, admission.queued, admission.in_use

    assert asyncio.run(scenario()) == (0, 0, 0)


def test_a_slot_freed_in_another_thread_wakes_the_waiting_step():
    async def scenario() -> int:
        admission = Admission(slots=1, per_client=1, queue_timeout_s=5.0)
        await admission.acquire("a")
        waiting = asyncio.create_task(admission.acquire("b"))
        await asyncio.sleep(0.01)
        threading.Thread(target=admission.release, args=("a",)).start()  # as an abandoned step's thread does
        await asyncio.wait_for(waiting, 5.0)
        return admission.held("b")

    assert asyncio.run(scenario()) == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), min_size=1, max_size=30),
       st.integers(1, 3), st.integers(1, 3))
def test_slots_and_quotas_are_never_exceeded(ops, slots, per_client):
    """Any interleaving of acquires and releases keeps every slot count and quota, and serves every waiter."""
    async def scenario() -> None:
        admission = Admission(slots=slots, per_client=per_client, queue_timeout_s=0.5)
        holding: list[str] = []
        waiting: list[asyncio.Task[None]] = []

        async def take(client: str) -> None:
            await admission.acquire(client)
            holding.append(client)

        for client, release in ops:
            if release and holding:
                admission.release(holding.pop(0))
            else:
                waiting.append(asyncio.create_task(take(client)))
            await asyncio.sleep(0)
            assert admission.in_use <= slots
            assert all(admission.held(c) <= per_client for c in "abc")
        while holding or not all(t.done() for t in waiting):
            await asyncio.sleep(0.005)
            if holding:
                admission.release(holding.pop(0))
        assert all(t.exception() is None for t in waiting) and admission.in_use == 0

    asyncio.run(scenario())


# -- the server on localhost --------------------------------------------------------------------------------------


def _slow_action_env(tmp_path: Path, delay_s: float) -> str:
    manifest = {**slow_action_env.ENV_SPEC,
                "difficulty": {"delay_s": {"min": 0, "max": 60, "default": delay_s}}}
    with RegistryStore(tmp_path / "slow-action.sqlite3") as store:
        record, _ = store.add(code=Path(slow_action_env.__file__).read_text(), manifest=manifest,
                              status=Status.ACCEPTED, trust=Trust.BUNDLED, module="fixture_envs.slow_action_env")
    spade_core.register_store(tmp_path / "slow-action.sqlite3", sync_seeds=False)
    return record.env_id


def _hostile(url: str, env_id: str, until: float, refusals: list[str]) -> None:
    """Reset and send the slow action until ``until`` (every slow step runs past the server's step limit)."""
    with GenericEnvClient(base_url=url).sync() as client:
        while time.monotonic() < until:
            result = client.reset(seed=0, env_id=env_id)
            if not result.done:
                result = client.step({"action": "slow"})
            if result.observation.get("error"):
                refusals.append(result.observation["error"])


def test_an_honest_client_is_served_in_time_while_hostile_sessions_send_slow_actions(tmp_path: Path):
    slow = _slow_action_env(tmp_path, delay_s=1.5)
    config = ServeConfig(env_ids=(slow,), step_timeout_s=0.4, worker_slots=3, steps_per_client=2,
                         max_abandoned_steps=2, queue_timeout_s=0.3)
    for running in start(config):
        until = time.monotonic() + 4.0
        refusals: list[str] = []
        hostile = [threading.Thread(target=_hostile, args=(running.url, slow, until, refusals)) for _ in range(4)]
        for thread in hostile:
            thread.start()
        time.sleep(0.5)  # the hostile sessions hold the slots their client may have
        latencies = []
        with GenericEnvClient(base_url=running.url, headers={"X-Spade-Client": "honest"}).sync() as client:
            assert not client.reset(seed=0, env_id=slow).done
            for _ in range(12):
                started = time.monotonic()
                result = client.step({"action": "ok"})
                latencies.append(time.monotonic() - started)
                assert not result.observation.get("error"), result.observation["error"]
                if result.done:
                    client.reset(seed=0, env_id=slow)
        for thread in hostile:
            thread.join(timeout=30)
        assert max(latencies) < 1.0, latencies  # never behind a 1.5 s slow step
        assert refusals and all("busy" in why or "longer than" in why or "max_abandoned_steps" in why
                                for why in refusals)


def test_sessions_per_client_are_bounded_and_other_clients_still_connect():
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    for running in start(ServeConfig(env_ids=(GAME,), sessions_per_client=2)):
        ws_url = f"ws://127.0.0.1:{running.port}/ws"
        with ExitStack() as first, ExitStack() as second:
            first.enter_context(connect(ws_url))
            second.enter_context(connect(ws_url))
            with connect(ws_url) as third:
                with pytest.raises(ConnectionClosed) as closed:
                    third.recv(timeout=10)
            assert closed.value.rcvd.code == 1013 and "sessions_per_client" in closed.value.rcvd.reason
            with GenericEnvClient(base_url=running.url, headers={"X-Spade-Client": "other"}).sync() as client:
                assert not client.reset(seed=0, env_id=GAME).done
            first.close()
            running.wait_sockets(1)
            with GenericEnvClient(base_url=running.url).sync() as client:  # a freed session makes room again
                assert not client.reset(seed=0, env_id=GAME).done


def test_a_malformed_client_name_is_refused():
    import urllib.error
    import urllib.request

    for running in start(ServeConfig(env_ids=(GAME,))):
        request = urllib.request.Request(running.url + "/health", headers={"X-Spade-Client": "two words"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 400 and "X-Spade-Client" in refused.value.read().decode()


def test_idle_sessions_on_more_sandboxed_environments_than_workers_never_refuse_another_reset(tmp_path: Path):
    """Three sessions each hold an episode of a different designer environment (run in the sandbox) on a pool of two
    workers and go idle; a fourth client's reset still plays, and an idle session's next step goes on where it was
    (its worker was evicted; its episode is rebuilt by replay)."""
    from spade_core.sandbox import SandboxLimits, WorkerPool
    from spade_core.sandbox.shared_pool import default_pool, set_default_pool

    secret = (Path(__file__).resolve().parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text()
    with RegistryStore(tmp_path / "designer.sqlite3") as store:
        ids = [store.add(code=secret.replace('"SecretNumber"', f'"Secret{i}"'),
                         manifest={**_spec_of(secret), "name": f"Secret{i}"}, status=Status.ACCEPTED,
                         trust=Trust.DESIGNER)[0].env_id for i in range(3)]
    spade_core.register_store(tmp_path / "designer.sqlite3", sync_seeds=False)
    previous = default_pool()
    pool = WorkerPool(SandboxLimits(call_timeout_s=10), prestart=0, max_workers=2, max_idle_group_workers=0)
    set_default_pool(pool)
    try:
        for running in start(ServeConfig(env_ids=tuple(ids))):
            clients = [GenericEnvClient(base_url=running.url, headers={"X-Spade-Client": f"idle{i}"}).sync()
                       for i in range(3)]
            for client, env_id in zip(clients, ids):
                client.connect()
                first = client.reset(seed=3, env_id=env_id)
                assert not first.done and not first.observation.get("error"), first.observation
            with GenericEnvClient(base_url=running.url, headers={"X-Spade-Client": "honest"}).sync() as honest:
                result = honest.reset(seed=4, env_id=ids[0])
                assert not result.done and not result.observation.get("error"), result.observation
            step = clients[1].step({"action": "50"})
            assert not step.observation.get("error"), step.observation
            assert pool.evictions >= 1 and pool.stats()["workers"] <= 2
            for client in clients:
                client.close()
    finally:
        set_default_pool(previous)
        pool.shutdown()


def _spec_of(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "good_secret_number", "exec"), namespace)  # a test-owned corpus file
    return dict(namespace["ENV_SPEC"])
