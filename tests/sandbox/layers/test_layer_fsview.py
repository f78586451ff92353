"""The filesystem view on its own: with seccomp and Landlock off (the uid drop stays), a compromised worker's tree
holds only the interpreter's read paths and its scratch, so looking at a host path (stat, readlink, getxattr, a
listing) fails like opening it; the read paths are read-only. The same probe sees the host with the view off."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from layer_support import pwn

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a mount namespace needs root")

LOOK = """
import errno, os
def attempt(action):
    try:
        return ["ok", action()]
    except OSError as exc:
        return [errno.errorcode.get(exc.errno, str(exc.errno)), None]
result = {
    "stat_shadow": attempt(lambda: os.stat("/etc/shadow").st_size),
    "stat_host_file": attempt(lambda: os.stat(HOST_FILE).st_size),
    "listdir_host_dir": attempt(lambda: sorted(os.listdir(os.path.dirname(HOST_FILE)))),
    "readlink_host_link": attempt(lambda: os.readlink(HOST_LINK)),
    "getxattr_host_file": attempt(lambda: os.getxattr(HOST_FILE, "user.spade")),
    "readlink_proc_exe": attempt(lambda: os.readlink("/proc/1/exe")),
    "listdir_root": attempt(lambda: sorted(os.listdir("/"))),
    "stat_stdlib": attempt(lambda: os.stat(os.__file__).st_size > 0),
    "write_stdlib": attempt(lambda: os.open(os.__file__, os.O_WRONLY | os.O_APPEND)),
    "write_scratch": attempt(lambda: os.write(os.open("probe.txt", os.O_CREAT | os.O_WRONLY, 0o600), b"x")),
    "create_in_root": attempt(lambda: os.mkdir("/planted")),
}
"""

ALONE = dict(seccomp=False, landlock=False)


@pytest.fixture()
def host_dir():
    """A host directory any uid can reach and read (pytest's own tmp dirs are root-only)."""
    path = Path(tempfile.mkdtemp(prefix="spade-fsview-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _look(pool, tmp_path: Path) -> dict:
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("host secret")
    os.chmod(host_file, 0o644)  # readable by anyone: only the view can hide it
    os.setxattr(host_file, "user.spade", b"mark")
    os.symlink("/etc/shadow", tmp_path / "host-link")
    source = LOOK.replace("HOST_FILE", repr(str(host_file))).replace("HOST_LINK", repr(str(tmp_path / "host-link")))
    worker = pool.single_use_worker()
    try:
        return pwn(pool, worker, source)["ok"]
    finally:
        pool.release(worker)


def test_host_paths_do_not_exist_for_a_worker(fresh_pool, host_dir) -> None:
    pool = fresh_pool(**ALONE)
    assert pool.layers()["fsview"] == "on", pool.layers()
    got = _look(pool, host_dir)
    for name in ("stat_shadow", "stat_host_file", "listdir_host_dir", "readlink_host_link", "getxattr_host_file",
                 "readlink_proc_exe"):
        assert got[name][0] == "ENOENT", (name, got[name])
    assert not {"etc", "proc", "sys", "home", "var"} & set(got["listdir_root"][1]), got["listdir_root"]
    assert got["stat_stdlib"] == ["ok", True]
    assert got["write_stdlib"][0] in ("EROFS", "EACCES"), got["write_stdlib"]
    assert got["write_scratch"] == ["ok", 1]
    assert got["create_in_root"][0] in ("EROFS", "EACCES"), got["create_in_root"]


def test_without_the_view_the_same_probe_sees_the_host(fresh_pool, host_dir) -> None:
    got = _look(fresh_pool(filesystem_view=False, **ALONE), host_dir)
    assert got["stat_host_file"] == ["ok", len("host secret")], got
    assert got["readlink_host_link"] == ["ok", "/etc/shadow"], got
    assert got["stat_shadow"][0] == "ok", got
