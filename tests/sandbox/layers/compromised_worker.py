"""Test-only: turns every worker of a pool into a *compromised* worker, as if the static policy had been escaped.

Loaded into the launcher by :func:`start_compromised_pool` (a test bootstrap runs this file before the launcher's
``main``), it adds one request to the worker, ``{"op": "pwn", "source": ...}``, which runs ``source`` as ordinary,
unrestricted Python inside a fully set-up worker: after every OS layer (fds, environ, scratch, rlimits, IPC
namespace, uid, network namespace, no_new_privs, Landlock, seccomp) is applied, inside a normal call (the worker's
call timer armed). ``source`` sees ``worker`` (the :class:`Worker`), ``sock`` (its channel to the host) and
``frame`` (the channel's framing); it sets ``result`` to reply with plain data.

Nothing in the product can enable this: the product's workers have no such request (they answer "unknown op"),
and the only way in is this file, which lives under ``tests/`` and is loaded only by the test bootstrap below.
"""

from __future__ import annotations

import os
from typing import Any

PWN_OP = "pwn"

TEST_BOOTSTRAP_TEMPLATE = """
import os, sys, types
root = sys.argv[1]
sys.path.insert(0, root)
for name in ("spade_core", "spade_core.contract"):
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(root, *name.split("."))]
    sys.modules[name] = pkg
harness = {harness!r}
exec(compile(open(harness).read(), harness, "exec"), {{"__name__": "compromised_worker"}})
from spade_core.sandbox.launcher import main
main(sys.argv[2])
"""


def _install() -> None:
    """Runs in the launcher (``__name__ == "compromised_worker"``): wrap the worker's constructor."""
    from spade_core.sandbox import wire, worker

    original = worker.Worker.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # replaces the constructor
        original(self, *args, **kwargs)

        def pwn(request: dict[str, Any]) -> Any:
            namespace: dict[str, Any] = {"worker": self, "sock": self.sock, "frame": wire.frame, "os": os,
                                         "result": None}
            exec(compile(request["source"], "<compromised>", "exec"), namespace)  # test harness
            return namespace["result"]

        self.handlers[PWN_OP] = pwn

    worker.Worker.__init__ = __init__


if __name__ == "compromised_worker":
    _install()
