"""Run a script (or ``-m module``) as several ranks of one torchrun launch on this machine (gloo on CPU): the
data-parallel, sharding and TRL tests share it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def launch_ranks(ranks: int, target: str | Path, *args: str, module: bool = False, timeout: float = 300,
                 pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``torchrun --standalone --nproc_per_node RANKS TARGET ARGS`` with one torch thread per rank; ``pythonpath``
    is prepended (where a worker script finds its helpers). Returns the finished process (check its returncode)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), os.environ.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks),
               *(["-m"] if module else []), str(target), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
