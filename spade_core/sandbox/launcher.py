"""The forkserver-style launcher: a fresh, preloaded interpreter that forks sandbox workers on request.

The host never forks itself (it may hold torch/vLLM state and threads); it starts this launcher once per pool as a
new interpreter with a fixed, minimal environment. The launcher imports only the sandbox modules and the
allow-listed real modules (not the ``spade_core`` package, whose import registers environments), enters a fresh
network namespace, freezes its heap (``gc.freeze``, so forked workers share its pages) and then serves requests on
a ``SOCK_SEQPACKET`` control socket:

- ``spawn`` (with the worker's end of a host socketpair attached as SCM_RIGHTS) -> ``{"pid": n}``
- ``status {pid, wait}`` -> ``{"status": waitstatus | null, "stderr": tail of the worker's log}``
- ``kill {pid}``, ``shutdown``; end-of-file on the control socket (the host died) means shutdown.

On shutdown every worker is killed and reaped and the scratch directories are removed: no orphans.
"""

from __future__ import annotations

import gc
import json
import os
import select
import shutil
import signal
import socket
import sys
import time
import traceback
from typing import Any

BOOTSTRAP = """
import os, sys, types
root = sys.argv[1]
sys.path.insert(0, root)
for name in ("spade_core", "spade_core.contract"):
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(root, *name.split("."))]
    sys.modules[name] = pkg
from spade_core.sandbox.launcher import main
main(sys.argv[2])
"""
"""Run as ``python -s -P -B -c BOOTSTRAP <project root> <config file>``; stubs the packages so that their
``__init__`` (which imports gymnasium and touches the registry) does not run in the launcher."""

PRELOAD_ENCODINGS = ("utf_8", "ascii", "latin_1", "utf_16", "utf_32", "cp1252", "idna", "unicode_escape", "raw_unicode_escape")
MAX_STATUSES = 4096


class Launcher:
    def __init__(self, config: dict[str, Any]) -> None:
        from spade_core.sandbox import allowlist, limits, oslayers

        self.control = socket.socket(fileno=int(config["control_fd"]))
        self.limits_data: dict[str, Any] = config["limits"]
        self.limits = limits.SandboxLimits.from_dict(self.limits_data)
        self.scratch_root: str = config["scratch_root"]
        self.children: dict[int, str] = {}
        self.statuses: dict[int, dict[str, Any]] = {}
        self.pid = os.getpid()
        if self.limits.network_namespace:
            try:
                oslayers.unshare_network()
                self.netns = "on"
            except oslayers.LayerUnavailable as exc:
                self.netns = f"off: {exc.strerror}"
        else:
            self.netns = "off: disabled by SandboxLimits.network_namespace"
        self.seccomp = limits.seccomp_program(self.limits)
        self.standins, self.problems = allowlist.build_standins(config["allowlist"])
        for enc in PRELOAD_ENCODINGS:
            "x".encode(enc)
        _preload()

    # -- requests ------------------------------------------------------------------------------------------
    def serve(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self.shutdown())
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        gc.collect()
        gc.freeze()
        self.reply({"ready": True, "netns": self.netns, "problems": self.problems})
        while True:
            self.reap()
            readable, _, _ = select.select([self.control], [], [], 0.25)
            if not readable:
                continue
            try:
                data, fds, _flags, _addr = socket.recv_fds(self.control, 1 << 16, 4)
            except OSError:
                data, fds = b"", []
            if not data:
                self.shutdown()
            request = json.loads(data)
            op = request.get("op")
            if op == "spawn" and len(fds) == 1:
                self.spawn(fds[0], request.get("limits"))
            elif op == "status":
                for fd in fds:
                    os.close(fd)
                self.reply(self.status(int(request["pid"]), float(request.get("wait", 1.0))))
            elif op == "kill":
                pid = int(request["pid"])
                if pid in self.children:
                    _kill(pid)
                self.reply({"ok": True})
            elif op == "shutdown":
                self.shutdown()
            else:
                for fd in fds:
                    os.close(fd)
                self.reply({"error": f"unknown op {op!r}"})

    def reply(self, message: dict[str, Any]) -> None:
        self.control.send(json.dumps(message).encode())

    def spawn(self, fd: int, limits_override: dict[str, Any] | None) -> None:
        limits_data = dict(self.limits_data, **(limits_override or {}))
        pid = os.fork()
        if pid == 0:  # the worker
            try:
                self.control.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                from spade_core.sandbox import limits, worker

                scratch = os.path.join(self.scratch_root, f"w{os.getpid()}")
                lim = limits.SandboxLimits.from_dict(limits_data)
                layers = limits.apply_worker_isolation(lim, keep_fd=fd, scratch=scratch, launcher_pid=self.pid,
                                                       seccomp=self.seccomp)
                layers["netns"] = self.netns
                worker.run(fd, limits_data, self.standins, layers)
            except BaseException:  # noqa: BLE001 - report in the log, never return into the launcher loop
                traceback.print_exc()
            os._exit(71)
        os.close(fd)
        self.children[pid] = os.path.join(self.scratch_root, f"w{pid}")
        self.reply({"pid": pid})

    def status(self, pid: int, wait: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait
        while pid not in self.statuses and pid in self.children and time.monotonic() < deadline:
            time.sleep(0.002)
            self.reap()
        found = self.statuses.pop(pid, None)
        if found is None:
            return {"pid": pid, "status": None, "stderr": ""}
        return {"pid": pid, **found}

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            scratch = self.children.pop(pid, None)
            tail = ""
            if scratch:
                try:
                    with open(os.path.join(scratch, "stderr.log"), "rb") as fh:
                        fh.seek(max(0, os.fstat(fh.fileno()).st_size - 4000))
                        tail = fh.read().decode("utf-8", "replace")
                except OSError:
                    pass
                shutil.rmtree(scratch, ignore_errors=True)
            if len(self.statuses) >= MAX_STATUSES:
                self.statuses.pop(next(iter(self.statuses)))
            self.statuses[pid] = {"status": status, "stderr": tail}

    def shutdown(self) -> None:
        for pid in list(self.children):
            _kill(pid)
        deadline = time.monotonic() + 5.0
        while self.children and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.005)
        try:
            self.reply({"bye": True})
        except OSError:
            pass
        os._exit(0)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _preload() -> None:
    """Import everything a worker may need later: after the uid drop the interpreter's files may be unreadable."""
    import collections  # noqa: F401
    import copy  # noqa: F401
    import dataclasses  # noqa: F401
    import fractions  # noqa: F401
    import json.decoder  # noqa: F401
    import statistics  # noqa: F401

    import RestrictedPython  # noqa: F401

    from spade_core.contract import inner, rng  # noqa: F401
    from spade_core.sandbox import guards, limits, policy, probes, wire, worker  # noqa: F401


def main(config_path: str) -> None:
    """Launcher entry point (see :data:`BOOTSTRAP`); reads and deletes its config file."""
    try:
        with open(config_path) as fh:
            config = json.load(fh)
        os.unlink(config_path)
        launcher = Launcher(config)
    except BaseException:  # noqa: BLE001 - tell the host why we could not start
        traceback.print_exc()
        sys.exit(2)
    launcher.serve()
