"""The sandbox worker: runs designer code (and agent code) behind the JSON channel, inside its isolation.

A worker is forked by the launcher (:mod:`.launcher`), isolates itself (:func:`.limits.apply_worker_isolation`),
sends a ``hello`` frame and then serves one request at a time. It hosts any number of environment instances of
*one* code record; every instance gets its own module namespace (re-executed from the cached code object), so
instances never share module-level state. Episodes are hermetic too: a ``reset`` after the instance was used
re-runs the module body from the code object and constructs the class again with the same knobs before it resets,
so nothing an episode leaves behind (a module global, a class attribute, a default argument, a closure cell, an
attribute of the instance) reaches the next one.

Requests (JSON objects, ``op`` first) and their ``ok`` results:

- ``load {key, source, module}`` -> ``{"spec": ENV_SPEC, "cls": name}``: compile under the policy, run once
- ``new {iid, key, knobs}`` -> ``null``: a fresh namespace and ``cls(**knobs)``
- ``call {iid, m, a}`` -> the raw return value of ``reset``/``step``/``hint``/``ref`` (``reset`` on a used instance
  first rebuilds it: a fresh namespace and ``cls(**knobs)`` again)
- ``batch {calls: [[iid, m, a], ...]}`` -> ``[[status, value, seconds], ...]`` in order
- ``del {iid}``, ``probe``
- agent workers: ``exec {key, source}`` (the agent's code), ``test {source}`` (statements), ``eval {setup, exprs}``
  (a test's operands as canonical plain data, :mod:`.canon`; the host compares them)

During a call the worker may send ``{"sub": {"op": "code", ...}}`` (environment code running agent code through
:func:`~spade_core.sandbox.codeexec.run_python_code`) and waits for the host's ``{"subr": result}``.

Failures come back as ``{"err": {"cause", "type", "msg", "line"}}`` with cause ``policy``, ``exception``,
``memory`` or ``timeout`` (the per-call SIGALRM timer; the host's wall-clock kill is the backstop).
"""

from __future__ import annotations

import copy
import os
import signal
import socket
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

from spade_core.contract.inner import REQUIRED_METHODS, find_env_class
from spade_core.errors import EnvLoadError
from spade_core.sandbox import canon, guards, violations, wire
from spade_core.sandbox.allowlist import StandInModule, exposed_names
from spade_core.sandbox.limits import SandboxLimits
from spade_core.sandbox.policy import PolicyRejection, compile_env_source
from spade_core.sandbox.wrappers import SandboxRandom

ENV_FILENAME = "<env>"
TEST_FILENAME = "<test>"
METHODS = {"reset": "reset", "step": "step", "hint": "privileged_hint", "ref": "reference_action"}
MAX_MESSAGE = 64 * 1024 * 1024
MODULE_SUFFIX = "__sandboxed"
"""Appended to the module name the host gives, so a sandboxed namespace never takes the place of a real module in
``sys.modules``."""


class CallTimeout(BaseException):
    """Raised inside env code by the per-call timer (a BaseException so ``except Exception`` cannot eat it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout()


class _CodeEntry:
    __slots__ = ("code", "module")

    def __init__(self, code: Any, module: str) -> None:
        self.code = code
        self.module = f"{module}{MODULE_SUFFIX}"


class _Instance:
    """One hosted instance: what it is built from (code, knobs) and the module and object of the current episode.

    ``used`` is set by the first call on ``env`` (and by a build that failed); a ``reset`` of a used instance builds
    ``module`` and ``env`` afresh first."""

    __slots__ = ("entry", "knobs", "where", "module", "env", "used")

    def __init__(self, entry: _CodeEntry, knobs: dict[str, Any], where: str) -> None:
        self.entry = entry
        self.knobs = knobs
        self.where = where
        self.module: types.ModuleType | None = None
        self.env: Any = None
        self.used = False


CURRENT: Worker | None = None
"""The worker this process is serving as, if any (trusted helpers called from env code look here)."""


class Worker:
    """State and request handlers of one worker process."""

    def __init__(self, sock: socket.socket, limits: SandboxLimits, standins: dict[str, StandInModule]) -> None:
        self.sock = sock
        self.limits = limits
        self.standins = standins
        self.allowed = {name: frozenset(exposed_names(mod)) for name, mod in standins.items()}
        self.builtins = guards.make_builtins(standins)
        self.codes: dict[str, _CodeEntry] = {}
        self.instances: dict[int, _Instance] = {}
        self.timeout = limits.call_timeout_s
        self.buffer = bytearray()
        self.code_ns: dict[str, Any] = {}
        self.test_ns: dict[str, Any] = {}
        self.phase: str | None = None
        self.handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "load": self.op_load, "new": self.op_new, "call": self.op_call, "del": self.op_del,
            "exec": self.op_exec, "test": self.op_test, "eval": self.op_eval, "probe": self.op_probe,
        }

    # -- channel ----------------------------------------------------------------------------------------------
    def recv(self) -> Any:
        while True:
            if len(self.buffer) >= 4:
                (size,) = wire.HEADER.unpack_from(self.buffer)
                if size > MAX_MESSAGE:
                    raise SystemExit(3)
                if len(self.buffer) >= 4 + size:
                    payload = bytes(self.buffer[4:4 + size])
                    del self.buffer[:4 + size]
                    return wire.loads(payload)
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise SystemExit(0)  # the host closed the channel
            self.buffer += chunk

    def send(self, message: Any) -> None:
        self.sock.sendall(wire.frame(wire.dumps(message)))

    def serve(self) -> None:
        signal.signal(signal.SIGALRM, _on_alarm)
        while True:
            request = self.recv()
            op = request.get("op")
            if op == "batch":
                self.reply_batch(self.run_batch(request["calls"]))
                continue
            if op == "exit":
                return
            handler = self.handlers.get(op)
            if handler is None:
                self.send({"err": {"cause": "exception", "type": "ProtocolError", "msg": f"unknown op {op!r}"}})
                continue
            timeout = self.limits.load_timeout_s if op in ("load", "exec") or "source" in request else self.timeout
            self.phase = None
            status, value, _ = self.guarded(lambda h=handler, r=request: h(r), timeout)
            if status == "err" and self.phase:
                value["phase"] = self.phase
            self.reply(status, value, METHODS.get(request.get("m"), op))

    def reply(self, status: str, value: Any, what: str) -> None:
        if status == "ok":
            try:
                payload = wire.dumps({"ok": wire.to_wire(value)})
            except (ValueError, TypeError, RecursionError, MemoryError) as exc:
                status, value = "err", _error("exception", exc, f"{what}() returned a value that cannot be sent: ")
            else:
                if len(payload) > self.limits.max_reply_bytes:
                    status, value = "err", _oversize(len(payload), self.limits.max_reply_bytes, what)
                elif (len(payload) > self.limits.max_reply_elements
                      and wire.element_estimate(payload) > self.limits.max_reply_elements):
                    status, value = "err", _too_many(wire.element_estimate(payload), self.limits.max_reply_elements, what)
                else:
                    self.sock.sendall(wire.frame(payload))
                    return
        self.send({"err": value})

    # -- running untrusted code ----------------------------------------------------------------------------
    def guarded(self, fn: Callable[[], Any], timeout: float) -> tuple[str, Any, float]:
        """Run ``fn`` under the call timer and CPU limit; classify whatever it raises."""
        guards.reset_call_state()
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, timeout, 0.05)
        try:
            try:
                value = fn()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except CallTimeout:
            return "err", {"cause": "timeout", "type": "Timeout",
                           "msg": f"the call ran past its {timeout:g} s limit"}, time.perf_counter() - start
        except violations.PolicyViolation as exc:
            return "err", _error("policy", exc), time.perf_counter() - start
        except MemoryError as exc:
            prefix = f"the environment ran out of memory (the worker's limit is {self.limits.memory_mb} MB): "
            return "err", _error("memory", exc, prefix), time.perf_counter() - start
        except PolicyRejection as exc:
            return "err", {"cause": "policy", "type": "PolicyRejection", "msg": str(exc),
                           "problems": exc.problems}, time.perf_counter() - start
        except EnvLoadError as exc:
            return "err", {"cause": "load", "type": "EnvLoadError", "msg": str(exc)}, time.perf_counter() - start
        except SyntaxError as exc:
            return "err", {"cause": "exception", "type": "SyntaxError", "line": exc.lineno,
                           "msg": f"line {exc.lineno}: SyntaxError: {exc.msg}"}, time.perf_counter() - start
        except BaseException as exc:  # everything the env code raises is reported, never fatal
            if violations.VIOLATIONS:
                return "err", _error("policy", violations.PolicyViolation(violations.VIOLATIONS[0])), time.perf_counter() - start
            return "err", _error("exception", exc), time.perf_counter() - start
        if violations.VIOLATIONS:  # the code caught a refusal and carried on: still a policy violation
            return "err", {"cause": "policy", "type": "PolicyViolation",
                           "msg": violations.VIOLATIONS[0] + " (caught by the environment code)"}, time.perf_counter() - start
        return "ok", value, time.perf_counter() - start

    def run_batch(self, calls: list[Any]) -> list[Any]:
        results: list[Any] = []
        call = self.call
        for iid, method, arg in calls:
            status, value, seconds = self.guarded(lambda i=iid, m=method, a=arg: call(i, m, a), self.timeout)
            results.append([status, wire.to_wire(value) if status == "ok" else value, seconds])
        return results

    def reply_batch(self, results: list[Any]) -> None:
        """One frame for the whole batch, within the same byte and value budget as one reply: items that cannot
        be sent, or the largest items while the batch is over budget, become errors."""
        limit, max_elements = self.limits.max_reply_bytes, self.limits.max_reply_elements
        try:
            payload = wire.dumps({"ok": results})
            if len(payload) <= limit and (len(payload) <= max_elements or wire.element_estimate(payload) <= max_elements):
                self.sock.sendall(wire.frame(payload))
                return
        except (ValueError, TypeError, RecursionError, MemoryError):
            pass
        sizes: list[tuple[int, int, int]] = []
        for index, item in enumerate(results):
            if item[0] != "ok":
                continue
            try:
                data = wire.dumps(item[1])
            except (ValueError, TypeError, RecursionError, MemoryError) as exc:
                item[0], item[1] = "err", _error("exception", exc, "the call returned a value that cannot be sent: ")
                continue
            sizes.append((len(data), wire.element_estimate(data), index))
        total = sum(size for size, _, _ in sizes)
        elements = sum(count for _, count, _ in sizes)
        for size, count, index in sorted(sizes, reverse=True):
            if total <= limit - 4096 and elements <= max_elements - 64:
                break
            item = results[index]
            if size > limit:
                item[0], item[1] = "err", _oversize(size, limit, "the call")
            elif count > max_elements:
                item[0], item[1] = "err", _too_many(count, max_elements, "the call")
            else:
                item[0], item[1] = "err", _oversize(total, limit, "the batch (all instances of this message together)")
            total -= size
            elements -= count
        self.send({"ok": results})

    # -- handlers -------------------------------------------------------------------------------------------
    def compiled(self, key: str, source: str | None, module: str) -> _CodeEntry:
        entry = self.codes.get(key)
        if entry is None:
            if source is None:
                raise EnvLoadError(f"code {key[:12]} is not loaded in this worker")
            code = compile_env_source(source, filename=ENV_FILENAME, allowed_modules=self.allowed)
            entry = self.codes[key] = _CodeEntry(code, module)
        return entry

    def namespace(self, entry: _CodeEntry) -> types.ModuleType:
        """Run the module body from the compiled code object in a fresh module.

        Every namespace of a code record has the same name (the record's module name): an object's ``repr``
        shows it, so a name per instance or per episode would let the code count how many came before it. The
        module is registered in ``sys.modules`` under that name while its own code runs (:meth:`activate`), so a
        trusted helper that looks a class's module up (``dataclass``) finds the right one."""
        module = guards.make_module(self.builtins, entry.module)
        try:
            exec(entry.code, module.__dict__)  # restricted code object, guarded globals
        except BaseException:
            guards.drop_module(entry.module)
            raise
        return module

    def op_load(self, request: dict[str, Any]) -> Any:
        entry = self.compiled(request["key"], request["source"], request.get("module") or "env")
        module = self.namespace(entry)
        try:
            cls = find_env_class(module.__dict__, module_name=entry.module,
                                 where=request.get("where") or "environment module")
            return {"spec": module.__dict__.get("ENV_SPEC"), "cls": cls.__name__}
        finally:
            guards.drop_module(entry.module)

    def build(self, instance: _Instance) -> None:
        """A fresh namespace and a fresh ``cls(**knobs)`` for ``instance`` (the knobs are copied each time, so a
        constructor that changes a list it was given changes only its own copy)."""
        instance.module, instance.env, instance.used = None, None, True  # a failed build is retried on reset
        self.phase = "module"
        module = self.namespace(instance.entry)
        cls = find_env_class(module.__dict__, module_name=instance.entry.module, where=instance.where)
        self.phase = "__init__"
        instance.env = cls(**copy.deepcopy(instance.knobs))
        instance.module, instance.used = module, False
        self.phase = None

    def op_new(self, request: dict[str, Any]) -> Any:
        self.phase = "module"
        entry = self.compiled(request["key"], request.get("source"), request.get("module") or "env")
        instance = _Instance(entry, dict(request.get("knobs") or {}), request.get("where") or "environment module")
        self.build(instance)
        self.instances[request["iid"]] = instance
        return None

    @staticmethod
    def activate(instance: _Instance) -> None:
        """Register the instance's module under its name for the duration of its call (see :meth:`namespace`)."""
        if instance.module is not None:
            sys.modules[instance.entry.module] = instance.module

    def call(self, iid: int, method: str, arg: Any) -> Any:
        instance = self.instances.get(iid)
        if instance is None:
            raise EnvLoadError(f"instance {iid} does not exist in this worker")
        if method == "reset" and instance.used:
            self.build(instance)  # hermetic episodes: nothing the last episode left behind reaches this one
        env = instance.env
        if env is None:
            raise EnvLoadError(f"instance {iid} could not be rebuilt for a new episode (its module body or "
                               "constructor failed); call reset() again")
        instance.used = True
        self.activate(instance)
        if method == "step":
            return env.step(arg)
        if method == "reset":
            seed, options = arg
            return env.reset(SandboxRandom(seed), dict(options or {}))
        if method in METHODS:
            return getattr(env, METHODS[method])()
        raise EnvLoadError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")

    def op_call(self, request: dict[str, Any]) -> Any:
        return self.call(request["iid"], request["m"], request.get("a"))

    def op_del(self, request: dict[str, Any]) -> Any:
        instance = self.instances.pop(request["iid"], None)
        if instance is not None:
            self.activate(instance)
            close = getattr(instance.env, "close", None)
            try:
                if callable(close):
                    close()
            finally:
                guards.drop_module(instance.entry.module)
        return None

    # -- code execution (agent-written code, tests; only in agent workers) -----------------------------------
    def op_exec(self, request: dict[str, Any]) -> Any:
        code = compile_env_source(request["source"], filename=TEST_FILENAME, allowed_modules=self.allowed)
        self.code_ns = guards.make_module(self.builtins, "solution").__dict__
        collector = guards.CappedPrint(guards.guarded_getattr)
        self.code_ns["_print_"] = lambda _getattr_=None: collector
        exec(code, self.code_ns)  # restricted code object, guarded globals
        # Tests see the agent's names but never its rebinding of a builtin (``ValueError = Exception`` would make
        # ``except ValueError`` in a test accept anything; ``sorted = ...`` would forge ``sorted(f(x)) == ...``).
        self.test_ns = {k: v for k, v in self.code_ns.items() if k not in self.builtins}
        return {"stdout": collector()[-10_000:]}

    def op_test(self, request: dict[str, Any]) -> Any:
        code = compile_env_source(request["source"], filename=TEST_FILENAME, allowed_modules=self.allowed)
        exec(code, self.test_ns)  # restricted code object, guarded globals
        return None

    def op_eval(self, request: dict[str, Any]) -> Any:
        """Evaluate a test's operands after its setup; each as ``[True, canonical data]`` or ``[False, error]``.
        The comparison itself is made by the host (:mod:`.assertions`)."""
        if request.get("setup"):
            self.op_test({"source": request["setup"]})
        out: list[Any] = []
        for source in request["exprs"]:
            try:
                code = compile_env_source(source, filename=TEST_FILENAME, allowed_modules=self.allowed, mode="eval")
                out.append([True, canon.encode(eval(code, self.test_ns))])  # restricted code object
            except (Exception, violations.PolicyViolation) as exc:  # the agent code's error is data
                out.append([False, _error("exception", exc)["msg"]])
        return out

    def run_code_via_host(self, code: str, tests: list[str], timeout_s: float | None) -> dict[str, Any]:
        """Environment code (a code-domain verifier running in this worker) asks the host to run agent code in
        its own agent worker; the answer is plain JSON data. This worker never executes agent code itself."""
        left, interval = signal.getitimer(signal.ITIMER_REAL)
        budget = max(left - 0.15, 0.01) if left > 0 else self.timeout
        timeout = min(float(timeout_s or self.timeout), budget)
        self.send({"sub": {"op": "code", "code": code, "tests": tests, "timeout": max(timeout, 0.01),
                           "budget": budget}})
        answer = self._host_answer(left, interval)
        if not isinstance(answer, dict) or set(answer) != {"subr"} or not isinstance(answer["subr"], dict):
            raise EnvLoadError("the host answered a code-execution request with something else")
        return answer["subr"]

    def _host_answer(self, left: float, interval: float) -> Any:
        """The host's answer to the request just sent, read with the call timer stopped, then resumed with what it
        had left: a timeout raised while the answer is on its way would leave it unread, and the next call would
        take it for its own reply. The host's time is the host's to bound (its deadline for the exchange covers
        the request, and it kills a worker past it); the timer bounds this worker's own work."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        answer = self.recv()
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left, interval)
        return answer

    def op_probe(self, request: dict[str, Any]) -> Any:
        from spade_core.sandbox import probes

        if request.get("simulate"):
            return probes.simulate_escape(str(request["simulate"]), request.get("host_pid"))
        return probes.run_probes(request.get("host_pid"), request.get("outside_path"), request.get("tcp_port"))


def _safe_str(exc: BaseException) -> str:
    """``str(exc)`` of an exception env code made (its ``__str__`` may raise, loop or return a non-string)."""
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__ must not kill the worker
        return "<the exception's message could not be produced>"
    return text if type(text) is str else "<not a string>"


def _error(cause: str, exc: BaseException, prefix: str = "") -> dict[str, Any]:
    try:
        line = _env_line(exc)
    except BaseException:
        line = None
    text = _safe_str(exc)
    if len(text) > 2000:
        text = text[:2000] + "..."
    where = f"line {line}: " if line is not None and not text.startswith("line ") else ""
    name = type(exc).__name__
    name = name if type(name) is str else "Exception"
    return {"cause": cause, "type": name, "line": line,
            "msg": f"{prefix}{where}{name}: {text}" if cause != "policy" else f"{prefix}{where}{text}"}


def _oversize(size: int, limit: int, what: str) -> dict[str, Any]:
    return {"cause": "policy", "type": "OutputTooLarge",
            "msg": f"{what}() returned {size} bytes of data; the limit is {limit} (SandboxLimits.max_reply_bytes)"}


def _too_many(count: int, limit: int, what: str) -> dict[str, Any]:
    return {"cause": "policy", "type": "OutputTooLarge",
            "msg": f"{what}() returned about {count} JSON values; the limit is {limit} "
                   "(SandboxLimits.max_reply_elements): return fewer, larger values (a string, not a list of chars)"}


def _env_line(exc: BaseException) -> int | None:
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in (ENV_FILENAME, TEST_FILENAME):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run(sock_fd: int, limits_data: dict[str, Any], standins: dict[str, StandInModule], layers: dict[str, str]) -> None:
    """Worker entry point after isolation: say hello, then serve until the host closes the channel."""
    sock = socket.socket(fileno=sock_fd)
    sock.setblocking(True)
    global CURRENT
    worker = CURRENT = Worker(sock, SandboxLimits.from_dict(limits_data), standins)
    try:
        worker.send({"hello": {"pid": os.getpid(), "layers": layers}})
        worker.serve()
    except (SystemExit, BrokenPipeError, ConnectionResetError):
        pass
    except BaseException:  # last resort: leave a trace in the scratch log, then die
        traceback.print_exc(file=sys.stderr)
        os._exit(1)
    os._exit(0)


__all__ = ["REQUIRED_METHODS", "Worker", "run"]
