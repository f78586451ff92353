"""The python executor tool: run agent-written Python in the sandbox and report its output and test results.

Code never runs in the host process: each call goes to :func:`spade_core.sandbox.run_python_code` (a single-use
worker, or the current worker under the same policy when called from sandboxed environment code).
"""

from __future__ import annotations

from typing import Any

from spade_tools.base import ToolDef, ToolError, ToolSet

MAX_CODE_CHARS = 20_000


class PythonExecutor(ToolSet):
    """Runs Python snippets (and optional assert tests) contained; keeps a short history for snapshots."""

    KIND = "python"
    CALL_TIMEOUT_S = None  # the sandbox enforces timeout_s on the worker; the host only waits for its reply
    TOOL_DEFS = (
        ToolDef(
            "run_python",
            "Run a Python snippet in a sandbox (no files, no network, standard-library stand-ins only) and return "
            "what it printed; optional assert statements are run after it and reported one by one.",
            {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "minLength": 1, "maxLength": MAX_CODE_CHARS},
                    "tests": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
                },
                "required": ["code"],
                "additionalProperties": False,
            },
        ),
    )

    def __init__(self, timeout_s: float = 5.0) -> None:
        self.timeout_s = timeout_s
        self.history: list[dict[str, Any]] = []

    def run_python(self, code: str, tests: list[str] | None = None) -> dict[str, Any]:
        from spade_core.errors import SandboxError
        from spade_core.sandbox import run_python_code

        try:
            result = run_python_code(code, tests=list(tests or []), timeout_s=self.timeout_s)
        except SandboxError as exc:
            raise ToolError(f"the sandbox could not run the code: {exc}") from exc
        summary = {
            "ok": bool(result.get("ok")), "stdout": str(result.get("stdout", ""))[-4000:],
            "error": result.get("error"), "passed": int(result.get("passed", 0)), "failed": int(result.get("failed", 0)),
            "tests": [{"test": t.get("test"), "passed": bool(t.get("passed")), "error": t.get("error")}
                      for t in result.get("tests", [])],
        }
        self.history.append({"ok": summary["ok"], "passed": summary["passed"], "failed": summary["failed"]})
        return summary

    def snapshot(self) -> dict[str, Any]:
        return {"runs": list(self.history)}
