"""The scratch tmpfs on its own: with the filesystem view a compromised worker's scratch is a tmpfs of its own,
sized by the scratch quota. A write past the quota fails at once with ENOSPC (named files, unlinked-but-open ones
and entries alike) instead of the launcher noticing afterwards; nothing the worker writes reaches the host's
filesystem or another worker; the scratch is gone when the worker ends; and the launcher, with nothing to measure,
sleeps. With the view off the same writes go past the quota onto the host's disk, where the launcher's police
kills the worker after the fact."""

from __future__ import annotations

import os
import time

import pytest
from layer_support import LAYER_LIMITS, pwn, wait_dead

from spade_core.errors import SandboxMemoryError
from spade_core.sandbox import scratch

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a mount namespace needs root")

QUOTA_MB = LAYER_LIMITS["max_scratch_mb"]

FILL = """
import errno
def fill(unlink):
    written, outcome = 0, "no error"
    block = b"x" * (1 << 20)
    try:
        for index in range(QUOTA_MB + 8):          # 1 MiB files: under RLIMIT_FSIZE, past the quota together
            fd = os.open(f"{unlink}{index}", os.O_CREAT | os.O_WRONLY, 0o600)
            written += os.write(fd, block)
            if unlink:
                os.unlink(f"{unlink}{index}")      # its bytes stay allocated while it is open
                keep.append(fd)
            else:
                os.close(fd)
    except OSError as exc:
        outcome = errno.errorcode.get(exc.errno, str(exc.errno))
    return [outcome, written]
keep = []
result = {"named": fill(""), "unlinked": None}
for name in os.listdir("."):
    os.unlink(name)
result["unlinked"] = fill("u")
""".replace("QUOTA_MB", str(QUOTA_MB))

MANY_ENTRIES = """
import errno
made, outcome = 0, "no error"
try:
    for index in range(LIMIT):
        os.close(os.open(f"e{index}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
except OSError as exc:
    outcome = errno.errorcode.get(exc.errno, str(exc.errno))
result = [outcome, made]
""".replace("LIMIT", str(scratch.MAX_ENTRIES + 100))

WRITE_SECRET = "open('secret.txt', 'w').write('record A'); result = os.getcwd()"

LOOK_AT = """
import errno
def attempt(action):
    try:
        return ["ok", action()]
    except OSError as exc:
        return [errno.errorcode.get(exc.errno, str(exc.errno)), None]
result = {"stat": attempt(lambda: os.stat(OTHER + "/secret.txt").st_size),
          "listdir": attempt(lambda: os.listdir(OTHER)),
          "listdir_root": attempt(lambda: os.listdir(os.path.dirname(OTHER)))}
"""

ALONE = dict(seccomp=False, landlock=False)


def _run(pool, source: str):
    worker = pool.single_use_worker()
    try:
        return worker, pwn(pool, worker, source)["ok"]
    finally:
        pool.release(worker)


def test_a_write_past_the_quota_fails_with_enospc_and_the_worker_lives_on(compromised) -> None:
    worker = compromised.single_use_worker()
    try:
        got = pwn(compromised, worker, FILL, timeout=30)["ok"]
        for route in ("named", "unlinked"):
            outcome, written = got[route]
            assert outcome == "ENOSPC", (route, got)
            assert (QUOTA_MB - 2) << 20 <= written <= QUOTA_MB << 20, (route, got)
        assert pwn(compromised, worker, "result = 'still here'")["ok"] == "still here"  # refused, not killed
    finally:
        compromised.release(worker)


def test_the_entry_count_is_bounded_by_the_tmpfs_inodes(compromised) -> None:
    _, (outcome, made) = _run(compromised, MANY_ENTRIES)
    assert outcome == "ENOSPC" and made == scratch.MAX_ENTRIES, (outcome, made)


def test_without_the_view_the_same_writes_pass_the_quota_until_the_launcher_kills(fresh_pool) -> None:
    pool = fresh_pool(filesystem_view=False)
    worker = pool.single_use_worker()
    try:
        with pytest.raises(SandboxMemoryError, match="scratch quota exceeded"):
            got = pwn(pool, worker, FILL + "\nimport time; time.sleep(3)", timeout=30)
            assert got["ok"]["named"][0] != "ENOSPC", got  # the disk took it: only the police stops it
    finally:
        pool.release(worker)


def test_nothing_a_worker_writes_reaches_the_host_or_another_worker(fresh_pool) -> None:
    pool = fresh_pool(**ALONE)
    owner = pool.single_use_worker()
    try:
        where = pwn(pool, owner, WRITE_SECRET)["ok"]
        assert not os.path.exists(os.path.join(where, "secret.txt"))  # the host's directory holds no byte of it
        assert os.listdir(where) == [".root"], os.listdir(where)
        _, seen = _run(pool, LOOK_AT.replace("OTHER", repr(where)))
        assert seen["stat"][0] == "ENOENT" and seen["listdir"][0] == "ENOENT", seen
        assert seen["listdir_root"][0] == "ok" and os.path.basename(where) not in seen["listdir_root"][1], seen
    finally:
        pool.release(owner)


def test_without_the_view_the_host_holds_what_a_worker_writes(fresh_pool) -> None:
    pool = fresh_pool(filesystem_view=False, **ALONE)
    owner = pool.single_use_worker()
    try:
        where = pwn(pool, owner, WRITE_SECRET)["ok"]
        with open(os.path.join(where, "secret.txt")) as fh:
            assert fh.read() == "record A"
    finally:
        pool.release(owner)


def _scratch_mounts(pid: int) -> list[str]:
    with open(f"/proc/{pid}/mountinfo") as fh:
        return [line for line in fh if " - tmpfs " in line and f"size={QUOTA_MB * 1024}k" in line]


def test_the_scratch_is_gone_when_its_worker_ends(fresh_pool) -> None:
    pool = fresh_pool()
    worker = pool.single_use_worker()
    pid = worker.pid
    where = pwn(pool, worker, "open('big.bin', 'wb').write(b'x' * (8 << 20)); result = os.getcwd()")["ok"]
    mounts = _scratch_mounts(pid)
    assert len(mounts) == 1 and f" {where} " in mounts[0], mounts  # its own tmpfs, sized by the quota
    pool.release(worker)
    assert wait_dead(pid, 5)
    deadline = time.monotonic() + 5
    while os.path.lexists(where) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not os.path.lexists(where)  # the host's mount point went with it; the tmpfs died with its namespace
    assert not [name for name in os.listdir(pool._scratch_root or "") if name.startswith("w")]


def _times_scheduled(pid: int) -> int:
    with open(f"/proc/{pid}/schedstat") as fh:
        return int(fh.read().split()[2])


def test_a_launcher_whose_workers_have_scratch_tmpfs_never_wakes_while_idle(fresh_pool) -> None:
    pool = fresh_pool()
    pool.prestart = 2
    pool.start()
    time.sleep(0.5)  # the pre-started workers set themselves up
    assert len(pool.worker_pids()) == 2
    launcher = pool.launcher_pid or 0
    before = _times_scheduled(launcher)
    time.sleep(1.0)
    assert _times_scheduled(launcher) == before  # no police tick: it sleeps until a request or an exit
