"""The sandbox: run designer-written environment code (and agent-written code) contained, fast, with clear errors.

Two layers: a static policy on RestrictedPython (:mod:`.policy`, :mod:`.guards`, :mod:`.wrappers`,
:mod:`.allowlist`) and OS isolation in separate worker processes (:mod:`.limits`, :mod:`.oslayers`, :mod:`.launcher`,
:mod:`.worker`), driven from the host by a pool (:mod:`.pool`: the pool's public face, built in layers:
:mod:`.workers`: the launcher and worker lifecycle; :mod:`.exchange`: one request and its reply on a worker's
channel; :mod:`.placement`: instances on their group's workers, calls one at a time, replay; :mod:`.batch`:
``call_many``; :mod:`.instances`: what the pool knows of each code and instance; :mod:`.channel`: each worker's
channel; :mod:`.budgets`: what calls may spend; :mod:`.shared_pool`: the process-wide pool; :mod:`.cleanup`:
shutdown at exit) over a JSON-only channel (:mod:`.wire`). Agent code runs in its own agent workers
(:mod:`.codeexec`); its test asserts are decided in the host (:mod:`.assertions`) on canonical plain data
(:mod:`.canon`). See ``docs/sandbox.md``.

Entry points: :class:`SandboxedInnerEnv` / :func:`sandboxed_handle_factory` (the handle ``SpadeEnv`` uses for
designer code), :func:`load_env_module` (raw ``ENV_SPEC`` or the policy/load error), :func:`run_python_code`
(code-domain verification), :class:`WorkerPool` and :class:`SandboxLimits`.
"""

from spade_core.sandbox.allowlist import BASE_ALLOWLIST, merged_allowlist
from spade_core.sandbox.budgets import TimeBudget
from spade_core.sandbox.cleanup import shutdown_all
from spade_core.sandbox.codeexec import run_python_code
from spade_core.sandbox.instances import LoadResult
from spade_core.sandbox.limits import SandboxLimits
from spade_core.sandbox.pool import WorkerPool
from spade_core.sandbox.proxy import (
    SandboxedInnerEnv,
    call_many,
    load_env_module,
    sandboxed_handle_factory,
    step_many,
)
from spade_core.sandbox.shared_pool import default_pool, set_default_pool

__all__ = [
    "BASE_ALLOWLIST", "LoadResult", "SandboxLimits", "SandboxedInnerEnv", "TimeBudget", "WorkerPool", "call_many",
    "default_pool", "load_env_module", "merged_allowlist", "run_python_code", "sandboxed_handle_factory",
    "set_default_pool", "shutdown_all", "step_many",
]
