"""Code-domain verification helpers: find the agent's code, check its syntax, run it against tests in the sandbox.

The agent's code is untrusted. This module only *parses* it in the host (``ast.parse`` never executes anything);
:func:`run_tests` hands it to :func:`spade_core.sandbox.run_python_code`, which runs it in a contained worker with
time and memory limits. If the sandbox is missing, :func:`run_tests` raises :class:`SandboxError` — there is no
unguarded fallback.

The domain exposes the public functions below (and nothing else of this module) to sandboxed environment code as
a stand-in through ``spade_sandbox_modules``. Parsing helpers work anywhere; :func:`run_tests` called from code that
itself runs in a sandbox worker needs the sandbox to support that nesting, and raises :class:`SandboxError` until
it does.
"""

from __future__ import annotations

import ast
import textwrap
import warnings
from typing import Any

from spade_core import linear_re
from spade_core.errors import SandboxError
from spade_registry.syntax import parse_source

MAX_CODE_CHARS = 100_000
"""Longer actions are refused before parsing (parsing 1 MB of code takes seconds)."""

MAX_TESTS = 200
MAX_TIMEOUT_S = 60.0
PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3", "ipython"})

_FENCE_OPEN = linear_re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*?(`{3,}|~{3,})?[ \t]*$")
_ERROR_CHARS = 300
_EXCEPTION_NAME = linear_re.compile(r"^[A-Z][A-Za-z0-9]*(?:Error|Exception|Exit|Interrupt|Iteration)\z|^Exception\z")


def check_syntax(code: str) -> str | None:
    """Why ``code`` is not valid Python (e.g. ``"line 3: invalid syntax"``), or None if it parses."""
    if not isinstance(code, str):
        return f"code must be a string, got {type(code).__name__}"
    if len(code) > MAX_CODE_CHARS:
        return f"code is {len(code)} characters; the limit is {MAX_CODE_CHARS}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences warn at parse time
            parse_source(code)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return f"{where}{exc.msg}"
    except UnicodeError as exc:
        return f"code holds a character that is not valid Unicode text (position {getattr(exc, 'start', '?')})"
    except ValueError as exc:
        return str(exc) or "code holds a character Python does not accept"
    except (RecursionError, MemoryError):
        return "code is nested too deeply to parse"
    return None


def _fenced_blocks(text: str) -> list[tuple[str, str, bool]]:
    """Every fenced block in ``text`` as ``(language tag, code, closed)``, in order."""
    blocks: list[tuple[str, str, bool]] = []
    fence = ""
    lang = ""
    body: list[str] = []
    for line in text.splitlines():
        if not fence:
            m = _FENCE_OPEN.match(line)
            if m is None:
                continue
            opener, tag, closer = m.group(1), m.group(2).lower(), m.group(3)
            if closer and closer[0] == opener[0]:  # a one-line block: ```python x = 1```
                inner = line.strip()[len(opener):-len(closer)].strip()
                tag_word, _, rest = inner.partition(" ")
                if tag_word.lower() in PYTHON_TAGS and rest:
                    blocks.append((tag_word.lower(), rest, True))
                else:
                    blocks.append(("", inner, True))
                continue
            fence, lang, body = opener, tag, []
            continue
        stripped = line.strip()
        if stripped.startswith(fence[0] * 3) and not stripped.strip(fence[0]):
            blocks.append((lang, "\n".join(body), True))
            fence = ""
        elif stripped.endswith(fence) and fence[0] == "`":  # code``` with the fence glued to the last line
            body.append(line.rstrip()[: -len(fence)])
            blocks.append((lang, "\n".join(body), True))
            fence = ""
        else:
            body.append(line)
    if fence:
        blocks.append((lang, "\n".join(body), False))
    return blocks


def parse_code(text: str) -> tuple[str | None, str | None]:
    """``(code, None)`` for the agent's Python code, or ``(None, why not)`` with a message the agent can act on.

    The code is the last fenced ```` ```python ```` block (or last untagged block), else the whole text when it
    parses as Python on its own.
    """
    if not isinstance(text, str):
        return None, f"the action must be a string, got {type(text).__name__}"
    if len(text) > MAX_CODE_CHARS:
        return None, f"the action is {len(text)} characters; code must be at most {MAX_CODE_CHARS}"
    text = text.lstrip("\ufeff")
    if not text.strip():
        return None, "empty action: write your code in a ```python block"
    blocks = _fenced_blocks(text)
    if blocks:
        python = [b for b in blocks if b[0] in PYTHON_TAGS and b[0]]
        untagged = [b for b in blocks if not b[0]]
        chosen = (python or untagged or [None])[-1]
        if chosen is None:
            langs = ", ".join(sorted({b[0] for b in blocks}))
            return None, f"no ```python block found (found a block tagged {langs}); write Python in a ```python block"
        tag, body, closed = chosen
        code = textwrap.dedent(body).strip("\n")
        if not code.strip():
            return None, "the ```python block is empty"
        problem = check_syntax(code)
        if problem is not None:
            if not closed:
                return None, (
                    f"the ```python block is never closed (end it with a line of ```) and does not parse: {problem}"
                )
            return None, f"code does not parse: {problem}"
        return code, None
    problem = check_syntax(text)
    if problem is not None:
        return None, f"no ```python block found, and the text is not valid Python either ({problem})"
    return textwrap.dedent(text).strip("\n"), None


def extract_code(text: str) -> str | None:
    """The agent's Python code from a fenced block (or bare code that parses), or None (see :func:`parse_code`)."""
    return parse_code(text)[0]


def defined_names(code: str) -> list[str]:
    """Names bound at the top level of ``code`` (functions, classes, assignments, imports), in order; [] if invalid."""
    if check_syntax(code) is not None:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = parse_source(code)
    names: list[str] = []

    def add(name: str) -> None:
        if name not in names:
            names.append(name)

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                targets(elt)

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                targets(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets(node.target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                add((alias.asname or alias.name).split(".")[0])
    return names


def _failed_everything(tests: list[str], error: str) -> dict[str, Any]:
    results = [{"test": t, "ok": False, "error": error} for t in tests]
    return {"passed": 0, "failed": len(tests), "results": results, "error": error}


def _normalise(raw: Any, tests: list[str]) -> dict[str, Any]:
    """Check the sandbox's reply and return it in this module's shape.

    Accepts the agreed shape (``results: [{"test", "ok", "error"}]``) and the sandbox's ``codeexec`` shape
    (``tests: [{"test", "passed", "error", "cause"}]``).
    """
    if not isinstance(raw, dict):
        raise SandboxError(f"run_python_code returned {type(raw).__name__}, not a dict")
    items = raw.get("results")
    ok_key = "ok"
    if not isinstance(items, list):
        items, ok_key = raw.get("tests"), "passed"
    if not isinstance(items, list):
        raise SandboxError("run_python_code returned no list of per-test results")
    results = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise SandboxError(f"run_python_code result {i} is a {type(item).__name__}, not a dict")
        test = item.get("test", tests[i] if i < len(tests) else "")
        error = item.get("error")
        error = None if error is None else str(error)
        results.append({"test": str(test), "ok": item.get(ok_key) is True, "error": error})
    for test in tests[len(results):]:
        results.append({"test": test, "ok": False, "error": "not run"})
    passed = sum(1 for r in results if r["ok"])
    error = raw.get("error")
    return {"passed": passed, "failed": len(results) - passed, "results": results,
            "error": None if error is None else str(error)}


def _sandbox_runner() -> Any:
    """``run_python_code`` from the sandbox package, or :class:`SandboxError` if it is not there."""
    try:
        from spade_core.sandbox import run_python_code
    except ImportError as exc:
        raise SandboxError(
            f"the code sandbox is not available ({exc}); agent code is only ever run through "
            "spade_core.sandbox.run_python_code"
        ) from exc
    return run_python_code


def run_tests(code: str, tests: list[str], timeout_s: float = 5.0) -> dict[str, Any]:
    """Run ``code`` then each assert statement in ``tests`` inside the sandbox.

    Returns ``{"passed", "failed", "results": [{"test", "ok", "error"}], "error"}``; ``error`` says why the code
    itself failed (syntax, policy, timeout, exception at import). Code that does not parse is reported without a
    sandbox round trip. Raises :class:`SandboxError` if the sandbox is unavailable: untrusted code never runs here.
    """
    if not isinstance(code, str):
        raise TypeError(f"run_tests: code must be a string, got {type(code).__name__}")
    if not isinstance(tests, (list, tuple)) or not all(isinstance(t, str) for t in tests):
        raise TypeError("run_tests: tests must be a list of strings (assert statements)")
    if len(tests) > MAX_TESTS:
        raise ValueError(f"run_tests: at most {MAX_TESTS} tests per call, got {len(tests)}")
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise ValueError(f"run_tests: timeout_s must be a number in (0, {MAX_TIMEOUT_S}], got {timeout_s!r}")
    tests = list(tests)
    problem = check_syntax(code)
    if problem is not None:
        return _failed_everything(tests, f"code does not parse: {problem}")
    run_python_code = _sandbox_runner()
    try:
        raw = run_python_code(code, tests=tests, timeout_s=float(timeout_s))
    except OSError as exc:  # e.g. called from environment code that itself runs inside a sandbox worker
        raise SandboxError(
            f"the code sandbox could not start a worker ({type(exc).__name__}: {exc}); agent code is never run "
            "outside it"
        ) from exc
    return _normalise(raw, tests)


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _ERROR_CHARS else text[: _ERROR_CHARS - 3] + "..."


def equality_test(call: str, expected: Any) -> str:
    """An assert statement checking ``call == expected`` whose failure message shows what ``call`` returned.

    ``call`` is trusted test text (e.g. ``"add(2, 3)"``); ``expected`` must have a literal ``repr`` (numbers,
    strings, None, bools, and lists/tuples/dicts of them).
    """
    return f"assert {call} == {expected!r}, 'got ' + repr({call})"


def raises_test(call: str, exception: str = "Exception") -> str:
    """A test for :func:`run_tests` that passes only when ``call`` raises ``exception``.

    ``call`` is trusted test text (e.g. ``"parse_date('31/02/2024')"``); ``exception`` names the exception class the
    specification promises (``"ValueError"``, ``"KeyError"``; a subclass passes too). The test fails with "expected
    ValueError, got 5" when the call returns, and with the other error when it raises something else.
    """
    if not isinstance(call, str) or not call.strip():
        raise ValueError("raises_test: call must be the text of a call, e.g. \"f(-1)\"")
    if not isinstance(exception, str) or not _EXCEPTION_NAME.match(exception):
        raise ValueError(f"raises_test: exception must be an exception class name such as 'ValueError', got "
                         f"{exception!r}")
    return (f"try:\n    returned = {call}\nexcept {exception}:\n    pass\nelse:\n"
            f"    raise AssertionError('expected {exception}, got ' + repr(returned))")


def describe_results(
    result: dict[str, Any], visible: list[str] | None = None, labels: list[str] | None = None, limit: int = 3
) -> str:
    """Feedback for the agent: the failing *visible* tests with their errors, and a count of failing hidden ones.

    ``visible`` lists the tests the agent may see (all of them when None); ``labels`` optionally gives a readable
    text per test (same order as the tests); at most ``limit`` failures are spelled out.
    """
    results = result.get("results") or []
    total = len(results)
    passed = sum(1 for r in results if r.get("ok"))
    lines = []
    if result.get("error"):
        lines.append(f"Your code did not run: {_short(result['error'])}")
        if passed == 0:
            lines.append(f"None of the {total} tests passed.")
            return "\n".join(lines)
    if total and passed == total:
        lines.append(f"All {total} tests pass.")
        return "\n".join(lines)
    lines.append(f"{passed} of {total} tests pass.")
    shown = None if visible is None else set(visible)
    failing_visible = []
    hidden_failed = 0
    for i, r in enumerate(results):
        if r.get("ok"):
            continue
        if shown is None or r.get("test") in shown:
            label = labels[i] if labels is not None and i < len(labels) else r.get("test", "")
            failing_visible.append((label, r.get("error")))
        else:
            hidden_failed += 1
    for label, error in failing_visible[:limit]:
        lines.append(f"FAILED: {_short(label)}\n  error: {_short(error or 'assertion failed')}")
    if len(failing_visible) > limit:
        lines.append(f"... and {len(failing_visible) - limit} more failing shown tests.")
    if hidden_failed:
        lines.append(f"{hidden_failed} hidden test(s) fail.")
    return "\n".join(lines)
