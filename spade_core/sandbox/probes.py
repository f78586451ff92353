"""Isolation probes: trusted code run *inside* a worker that tries what escaped code would try.

The static policy should stop untrusted code long before any of this; the probes show what the OS layers alone
stop if the policy had a hole (``python benchmarks/bench_sandbox.py --layers`` prints the matrix per layer).
Each probe returns ``"blocked: <why>"`` or ``"ALLOWED: <what happened>"``.
"""

from __future__ import annotations

import errno
import gc
import os
import resource
import socket
from collections.abc import Callable
from typing import Any


def _attempt(action: Callable[[], str]) -> str:
    try:
        return "ALLOWED: " + action()
    except MemoryError:
        return "blocked: MemoryError"
    except OSError as exc:
        name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
        return f"blocked: {name} ({exc.strerror})"
    except Exception as exc:  # report whatever stopped it
        return f"blocked: {type(exc).__name__}: {exc}"


def _fork() -> str:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return f"forked child {pid}"


def _spawn() -> str:
    pid = os.posix_spawn("/bin/true", ["/bin/true"], {})
    os.waitpid(pid, 0)
    return f"spawned /bin/true as {pid}"


def _tcp(host: str, port: int) -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        s.connect((host, port))
    return f"connected to {host}:{port}"


def _udp_dns() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"\0" * 12, ("8.8.8.8", 53))
    return "sent a UDP datagram"


def _unix() -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind("\0spade-probe")
    return "bound an abstract unix socket"


def _write(path: str) -> str:
    with open(path, "w") as fh:
        fh.write("probe")
    return f"wrote {path}"


def _read(path: str) -> str:
    with open(path, "rb") as fh:
        return f"read {len(fh.read(64))} bytes of {path}"


def _kill(pid: int) -> str:
    os.kill(pid, 0)
    return f"may signal pid {pid}"


def _setuid() -> str:
    os.setuid(0)
    return "became root"


def _raise_as() -> str:
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return "raised the address-space limit"


def _allocate() -> str:
    block = bytearray(8 * 1024**3)
    return f"allocated {len(block) >> 30} GiB"


def _ptrace_peek(pid: int) -> str:
    with open(f"/proc/{pid}/environ", "rb") as fh:
        return f"read the host's environment ({len(fh.read())} bytes)"


def _raise_cpu_hard() -> str:
    soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
    return "raised the hard CPU limit"


def _inherited_state() -> str:
    """Another worker's data left in this process's memory by the launcher it was forked from."""
    seen = []
    for obj in gc.get_objects():
        if type(obj).__name__ == "Launcher" and hasattr(obj, "children"):
            held = len(obj.children) + len(obj.statuses) + len(getattr(obj, "reasons", {}))
            if held:
                seen.append(held)
    if not seen:
        raise LookupError("no other worker's pids, scratch paths, logs or statuses in memory")
    return f"found {sum(seen)} records of other workers"


def simulate_escape(action: str, host_pid: int | None = None) -> dict[str, Any]:
    """What escaped code could do to the host through the files it controls (tests and the benchmark use it).

    ``plant_log_symlinks``: links named like logs in the scratch dir to a root-only file, the host's environment
    and ``/dev/zero``, a marker on stderr, then exit with an error (the host reads the log when it reaps us).
    ``fill_scratch``: write 8 MiB files into the scratch dir until stopped (each file stays under RLIMIT_FSIZE).
    ``burst_scratch``: write four 8 MiB files at once and return (then sit idle, waiting for the next message).
    """
    scratch = os.getcwd()
    if action == "plant_log_symlinks":
        targets = ["/etc/shadow", "/dev/zero"] + ([f"/proc/{host_pid}/environ"] if host_pid else [])
        for index, target in enumerate(targets):
            for name in ("stderr.log", f"log{index}", f".log-{index}"):
                try:
                    os.symlink(target, os.path.join(scratch, name))
                except OSError:
                    pass
        os.write(2, b"SPADE-MARKER planted links\n")
        os._exit(3)
    if action == "fill_scratch":
        block = b"x" * (8 * 1024 * 1024)
        for index in range(1000):
            with open(os.path.join(scratch, f"fill{index}.bin"), "wb") as fh:
                fh.write(block)
        return {"written_mb": 8000}
    if action == "burst_scratch":
        block = b"x" * (8 * 1024 * 1024)
        for index in range(4):
            with open(os.path.join(scratch, f"burst{index}.bin"), "wb") as fh:
                fh.write(block)
        return {"written_mb": 32}
    raise ValueError(f"unknown escape simulation {action!r}")


def run_probes(host_pid: int | None, outside_path: str | None, tcp_port: int | None = None) -> dict[str, Any]:
    """Run every probe; the result maps probe names to outcomes plus a few facts about the process."""
    results: dict[str, Any] = {
        "fork": _attempt(_fork),
        "spawn_process": _attempt(_spawn),
        "tcp_connect_localhost": _attempt(lambda: _tcp("127.0.0.1", tcp_port or 9)),
        "udp_send_internet": _attempt(_udp_dns),
        "unix_socket": _attempt(_unix),
        "write_scratch": _attempt(lambda: _write(os.path.join(os.getcwd(), "probe.txt"))),
        "write_tmp": _attempt(lambda: _write(f"/tmp/spade-probe-{os.getpid()}")),
        "read_root_home": _attempt(lambda: _read("/root/.bashrc")),
        "read_etc_shadow": _attempt(lambda: _read("/etc/shadow")),
        "setuid_root": _attempt(_setuid),
        "raise_memory_limit": _attempt(_raise_as),
        "raise_cpu_hard_limit": _attempt(_raise_cpu_hard),
        "inherited_worker_state": _attempt(_inherited_state),
        "allocate_8gib": _attempt(_allocate),
    }
    if outside_path:
        results["write_outside_scratch"] = _attempt(lambda: _write(outside_path))
    if host_pid:
        results["signal_host"] = _attempt(lambda: _kill(host_pid))
        results["read_host_environ"] = _attempt(lambda: _ptrace_peek(host_pid))
    results["signal_launcher"] = _attempt(lambda: _kill(os.getppid()))
    results["uid"] = os.getuid()
    results["environ"] = sorted(os.environ)
    return results
