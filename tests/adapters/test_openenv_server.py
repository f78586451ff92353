"""``spade serve``: OpenEnv's own client against SPADE's OpenEnv server on localhost — many concurrent sessions, a
client killed mid-episode, an idle client reaped, a slow step, and nothing privileged reachable."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gymnasium as gym
import pytest

openenv = pytest.importorskip("openenv", reason="spade serve needs openenv (pip install 'spade-rl[openenv]'); CI "
                              "installs it")

import uvicorn  # noqa: E402
from fixture_envs import slow_env  # noqa: E402
from openenv.core.generic_client import GenericEnvClient  # noqa: E402

import spade_core  # noqa: E402 - registers the bundled spade/* environments
from spade_core.adapters.openenv_server import (  # noqa: E402
    ServeConfig,
    SpadeAction,
    SpadeOpenEnv,
    SpadeServer,
    build_server,
)
from spade_core.adapters.serve_settings import MAX_ACTION_CHARS, MAX_MESSAGE_BYTES  # noqa: E402
from spade_core.adapters.session import EpisodeSession  # noqa: E402
from spade_registry.records import Status, Trust  # noqa: E402
from spade_registry.store import RegistryStore  # noqa: E402


def registered(name: str) -> str:
    return next(env_id for env_id in gym.registry if env_id.startswith(f"spade/{name}-v"))


GAME, TOOLS = registered("TicTacToe"), registered("InventoryRecount")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Running:
    def __init__(self, server: SpadeServer, port: int) -> None:
        self.server, self.port = server, port
        self.url = f"http://127.0.0.1:{port}"

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=10) as reply:
            return json.loads(reply.read())

    def wait_sessions(self, count: int, within: float = 20.0) -> None:
        deadline = time.monotonic() + within
        while self.server.active_sessions != count:
            assert time.monotonic() < deadline, f"{self.server.active_sessions} sessions open, expected {count}"
            time.sleep(0.05)

    def wait_sockets(self, count: int, within: float = 20.0) -> None:
        """Until the per-client quota counts ``count`` WebSockets (it releases one after the session closes)."""
        deadline = time.monotonic() + within
        while self.server.open_sockets != count:
            assert time.monotonic() < deadline, f"{self.server.open_sockets} sockets counted, expected {count}"
            time.sleep(0.05)


def start(config: ServeConfig) -> Iterator[Running]:
    server, port = build_server(config), free_port()
    uv = uvicorn.Server(uvicorn.Config(server.app, host="127.0.0.1", port=port, log_level="error",
                                       **config.uvicorn_settings()))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Running(server, port)
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def served() -> Iterator[Running]:
    yield from start(ServeConfig(env_ids=(GAME, TOOLS), max_sessions=32, idle_timeout_s=2.0, step_timeout_s=30.0))


def reference_game(env_id: str, seed: int, hint: bool) -> tuple[list[str], list[str], float, bool]:
    """The learner's reference moves, the observations it sees, its return and success, played in-process."""
    session = EpisodeSession()
    seen = [session.reset(env_id, seed, hint=hint)]
    moves = []
    while not session.done:
        moves.append(session.env.reference_action())
        seen.append(session.step(moves[-1]).observation)
    session.close()
    return moves, seen, session.total_reward, session.success


def play_remote(url: str, env_id: str, seed: int, moves: list[str], hint: bool = False):
    with GenericEnvClient(base_url=url).sync() as client:
        first = client.reset(seed=seed, env_id=env_id, hint=hint)
        seen, result = [first.observation["text"]], first
        for move in moves:
            result = client.step({"action": move})
            seen.append(result.observation["text"])
        return seen, result


def test_health_and_schema(served):
    assert served.get("/health")["status"] == "healthy"
    schema = served.get("/schema")
    assert "action" in schema["action"]["properties"]
    observed = set(schema["observation"]["properties"])
    assert {"text", "success", "reward", "done"} <= observed
    assert not any("hint" in name or "reference" in name or "verif" in name for name in observed)


def test_many_concurrent_sessions_play_exactly_as_in_process(served):
    jobs = [(env_id, seed, seed % 2 == 0) for env_id in (GAME, TOOLS) for seed in range(8)]

    def one(job):
        env_id, seed, hint = job
        moves, seen, reward, success = reference_game(env_id, seed, hint)
        remote_seen, last = play_remote(served.url, env_id, seed, moves, hint)
        assert remote_seen == seen
        assert last.done and last.reward == pytest.approx(reward) and last.observation["success"] == success
        return hint and "Hint:" in remote_seen[0]

    with ThreadPoolExecutor(16) as pool:
        hinted = list(pool.map(one, jobs))
    assert sum(hinted) == len(jobs) // 2  # the hint shows exactly in hinted episodes
    served.wait_sessions(0)


def test_a_client_killed_mid_episode_frees_its_session(served):
    script = ("import sys\nfrom openenv.core.generic_client import GenericEnvClient\n"
              "c = GenericEnvClient(base_url=sys.argv[1]).sync()\nc.connect()\n"
              f"c.reset(seed=1, env_id={GAME!r})\nprint('ready', flush=True)\nimport time\ntime.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, served.url], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        served.wait_sessions(1)
        proc.kill()
        proc.wait(timeout=10)
        served.wait_sessions(0)
    finally:
        proc.kill()


def test_an_idle_client_is_reaped(served):
    client = GenericEnvClient(base_url=served.url).sync()
    client.connect()
    client.reset(seed=0, env_id=TOOLS)
    served.wait_sessions(1)
    served.wait_sessions(0, within=30.0)  # idle_timeout_s=2: the reaper closes it although the socket is open
    client.close()


def test_bad_requests_get_errors_and_the_server_keeps_serving(served):
    with GenericEnvClient(base_url=served.url).sync() as client:
        refused = client.reset(seed=0, env_id="spade/NotServed-v0")
        assert refused.done and "env_id" in refused.observation["error"]
        stepped = client.step({"action": "5"})
        assert stepped.done and "reset" in stepped.observation["error"]
    assert served.get("/health")["status"] == "healthy"


def test_a_slow_step_times_out_and_the_server_stays_up(tmp_path: Path):
    with RegistryStore(tmp_path / "slow.sqlite3") as store:
        record, _ = store.add(code=Path(slow_env.__file__).read_text(), manifest=slow_env.ENV_SPEC,
                              status=Status.ACCEPTED, trust=Trust.BUNDLED, module="fixture_envs.slow_env")
    spade_core.register_store(tmp_path / "slow.sqlite3", sync_seeds=False)
    for running in start(ServeConfig(env_ids=(record.env_id, GAME), max_sessions=4, step_timeout_s=0.5)):
        with GenericEnvClient(base_url=running.url).sync() as client:
            assert not client.reset(seed=0, env_id=record.env_id).done
            started = time.monotonic()
            result = client.step({"action": "ok"})
            assert result.done and "longer than 0.5 s" in result.observation["error"]
            assert time.monotonic() - started < 2.5  # answered at the limit, not when the 3 s step finished
            again = client.reset(seed=0, env_id=GAME)  # the same session plays on
            assert not again.done and again.observation["text"]
        assert running.get("/health")["status"] == "healthy"


def _post(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def _slow_record(tmp_path: Path) -> str:
    with RegistryStore(tmp_path / "slow.sqlite3") as store:
        record, _ = store.add(code=Path(slow_env.__file__).read_text(), manifest=slow_env.ENV_SPEC,
                              status=Status.ACCEPTED, trust=Trust.BUNDLED, module="fixture_envs.slow_env")
    spade_core.register_store(tmp_path / "slow.sqlite3", sync_seeds=False)
    return record.env_id


def test_a_client_timeout_never_lowers_the_servers_limit(tmp_path: Path):
    """Over HTTP a client may send ``timeout_s``; the server keeps its own limit, so tiny timeouts abandon nothing,
    and a 3 s step asked to finish in 1 ms completes."""
    slow = _slow_record(tmp_path)
    config = ServeConfig(env_ids=(slow, GAME), max_sessions=8, step_timeout_s=10.0)
    for running in start(config):
        for _ in range(10):
            reply = _post(running.url, "/step", {"action": {"action": "ok"}, "timeout_s": 0.001})
            assert "longer than" not in json.dumps(reply) and "reset" in reply["observation"]["error"]
        assert running.server.abandoned.running == 0
    env = SpadeOpenEnv(config)
    try:
        assert not env.reset(seed=0, env_id=slow).done
        result = env.step(SpadeAction(action="ok"), timeout_s=0.001)
        assert result.done and result.success and not result.error
    finally:
        env.close()


def test_abandoned_steps_are_capped_and_their_episodes_closed(tmp_path: Path):
    slow = _slow_record(tmp_path)
    config = ServeConfig(env_ids=(slow, GAME), max_sessions=8, step_timeout_s=0.3, max_abandoned_steps=2)
    for running in start(config):
        with GenericEnvClient(base_url=running.url).sync() as client:
            for _ in range(2):
                assert not client.reset(seed=0, env_id=slow).done
                assert "longer than 0.3 s" in client.step({"action": "ok"}).observation["error"]
            assert running.server.abandoned.running == 2
            busy = client.reset(seed=0, env_id=GAME)  # refused at once: the cap holds work, not the client
            assert busy.done and "max_abandoned_steps" in busy.observation["error"]
            deadline = time.monotonic() + 15
            while running.server.abandoned.running:  # each abandoned step returns (3 s) and its episode closes
                assert time.monotonic() < deadline
                time.sleep(0.05)
            again = client.reset(seed=0, env_id=GAME)
            assert not again.done and again.observation["text"]


def _raw(port: int, head: str) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(head.encode())
    return conn


def _status(conn: socket.socket) -> int:
    reply = b""
    while b"\r\n" not in reply:
        chunk = conn.recv(4096)
        assert chunk, f"the server closed without a reply ({reply!r})"
        reply += chunk
    return int(reply.split()[1])


def test_a_huge_post_is_refused_before_its_body_is_read(served):
    declared = _raw(served.port, "POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                 f"Content-Length: {400 * 1024 * 1024}\r\n\r\n")
    with declared:  # not one byte of the 400 MiB is sent: the declared length is enough
        assert _status(declared) == 413
    chunked = _raw(served.port, "POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n")
    sent = 0
    with chunked:
        chunked.settimeout(0.05)
        status = None
        while status is None:
            assert sent <= MAX_MESSAGE_BYTES + 16 * 1024 * 1024, "the body was read far past the limit"
            try:
                chunked.sendall(b"10000\r\n" + b" " * 0x10000 + b"\r\n")
                sent += 0x10000
                status = _status(chunked)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        assert status in (413, None) and sent > MAX_MESSAGE_BYTES - 0x10000
    assert served.get("/health")["status"] == "healthy"


def test_the_largest_action_fits_and_a_larger_websocket_message_is_refused(served):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with GenericEnvClient(base_url=served.url).sync() as client:  # every character escaped to 6 bytes of JSON
        stepped = client.step({"action": "\x01" * MAX_ACTION_CHARS})
        assert stepped.done and "reset" in stepped.observation["error"]
    with connect(f"ws://127.0.0.1:{served.port}/ws", max_size=None) as ws:
        ws.send(" " * (MAX_MESSAGE_BYTES + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big


def test_http_requests_past_the_concurrency_cap_are_refused_unread():
    for running in start(ServeConfig(env_ids=(GAME,), max_concurrent_requests=2)):
        held = [_raw(running.port, "POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
                for _ in range(2)]  # each request stays in progress, waiting for its body
        time.sleep(0.3)
        with _raw(running.port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n") as third:
            assert _status(third) == 503
        for conn in held:
            conn.close()
        deadline = time.monotonic() + 10
        while True:
            try:
                assert running.get("/health")["status"] == "healthy"
                break
            except urllib.error.HTTPError as err:
                assert err.code == 503 and time.monotonic() < deadline
                time.sleep(0.05)
