"""The hostile-code suite: every program in ``hostile/`` must be contained with the expected error type.

Each file is a designer-format module whose first line says what must happen: ``# expect: policy`` (the static
policy or a runtime guard refuses it), ``timeout``, ``memory``, ``crashed`` or ``exception``. Adding an attack is
adding a file. After every program a normal environment must still run on the same pool.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sandbox_support import HERE, assert_healthy

from spade_core.errors import SandboxError
from spade_core.sandbox import SandboxedInnerEnv

HOSTILE = sorted((HERE / "hostile").glob("*.py"))
CAUSES = {"policy", "timeout", "memory", "crashed", "exception"}
_EXPECT = re.compile(r"^#\s*expect:\s*(\w+)\s*$")


def expected_cause(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    match = _EXPECT.match(first)
    assert match and match.group(1) in CAUSES, f"{path.name}: first line must be '# expect: <{'|'.join(sorted(CAUSES))}>'"
    return match.group(1)


def run_attack(source: str, pool, name: str) -> SandboxError | None:
    """Drive the program like an RL loop would; return the first sandbox error (None if it was never stopped)."""
    handle = None
    try:
        handle = SandboxedInnerEnv(source, env_id=f"hostile/{name}", pool=pool)
        handle.reset(0, {})
        for _ in range(8):
            handle.step("a")
        handle.privileged_hint()
        handle.reference_action()
    except SandboxError as exc:
        return exc
    finally:
        if handle is not None:
            handle.close()
    return None


def test_suite_size() -> None:
    assert len(HOSTILE) >= 40
    assert {expected_cause(p) for p in HOSTILE} >= {"policy", "timeout", "memory", "exception"}


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.stem)
def test_hostile_program_is_contained(path: Path, pool) -> None:
    expected = expected_cause(path)
    host_pid = os.getpid()
    error = run_attack(path.read_text(), pool, path.stem)
    assert error is not None, f"{path.name} ran without being stopped"
    assert error.cause == expected, f"{path.name}: expected {expected}, got {type(error).__name__}: {error}"
    assert str(error), "errors must carry a message"
    assert os.getpid() == host_pid
    assert not os.path.exists("/tmp/spade-pwned")
    assert_healthy(pool)
