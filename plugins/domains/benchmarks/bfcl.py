"""BFCL v4 multi-turn as SPADE environments (categories base, miss_func, miss_param, long_context).

The ``bfcl-eval`` package ships the tasks (user turns, initial API state, ground-truth call sequences), the
function docs and the stateful API classes (``GorillaFileSystem``, ``TwitterAPI``, ``TradingBot``, ...). Each task
becomes one :class:`~spade_core.contract.env.SpadeEnv`:

- observations: the function docs as JSON tool schemas plus the first user turn; then the execution results of
  each action; when the model ends a turn (a reply without a tool call), the next user turn (for ``miss_func``
  the docs of the functions that turn adds, with BFCL's own wording);
- actions: tool calls ``{"name": ..., "arguments": {...}}`` (a JSON list for several; ``<tool_call>`` tags and
  fenced JSON too, parsed by the tool-use domain's parser) or BFCL's own Python-call list
  ``[cd(folder='docs'), ls()]``; the calls run against the task's live API instances, with BFCL's result strings;
- verdict, exactly as BFCL's ``multi_turn_checker`` decides, after every turn whose ground truth is not empty:
  the model must have executed at least one call in that turn; every public attribute of every API instance must
  equal the instance of a ground-truth run (same initial state, the ground-truth calls of every turn so far); and
  the ground truth's execution results for that turn must all appear (as a multiset) among the model's results of
  all turns so far. More than 20 executed steps in one turn force-quits the task (BFCL fails it, except in the
  last turn, where BFCL's runner still scores it; so does this adapter).

Reward is 1.0 on success at the end, else 0.0. By default an episode ends at the first failed turn (the verdict
cannot change afterwards); ``reset(options={"stop_at_failure": False})`` plays every turn, as BFCL's inference
does. Calls are executed by method lookup on the instances, never by ``eval`` of model text (BFCL evals strings).

Known, deliberate differences from BFCL's pipeline (none changes a verdict for the same executed calls): an action
naming an unknown function, with malformed JSON, or with more than 8 calls is a ``format_error`` that ends the turn
without executing anything (BFCL executes the well-formed calls of a step and records ``NameError`` strings for
unknown names); BFCL's string rewriting also prefixes method names that appear inside string arguments followed by
``(``, which this adapter does not imitate.

bfcl-eval is Apache-2.0 licensed (Berkeley Function Calling Leaderboard, ShishirPatil/gorilla).
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.evaluation.errors import BenchmarkDataError, BenchmarkUnavailableError
from spade_core.evaluation.suite import EvalTask, Suite
from spade_domains.benchmarks.common import trusted_env
from spade_domains.tool_use.actions import milestones, parse_tool_action
from spade_registry.manifest import EnvManifest
from spade_registry.syntax import parse_source
from spade_tools.guard import CallTimeout, check_plain_data, guarded_arguments, guarded_call, plain_data_problem

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
VERSION_PREFIX = "BFCL_v4"
MAXIMUM_STEP_LIMIT = 20
"""BFCL's per-turn step limit: the 21st executed step of a turn force-quits the task."""
MAX_CALLS_PER_ACTION = 8
"""The tool-use parser's limit; longer ground-truth turns are replayed over several steps."""
INSTALL_HINT = "pip install 'spade-rl[eval]' && pip install --no-deps bfcl-eval"
PYTHON_SYNTAX_HINT = " Note that the provided function is in Python 3 syntax."
"""BFCL appends this to every function description (``add_language_specific_hint_to_function_doc``)."""
ADDITIONAL_FUNCTION_PROMPT = "I have updated some more functions you can choose from. What about now?"
"""BFCL's user message for a ``miss_func`` turn that adds the held-out functions."""
DISALLOWED_NAMES = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")
"""Names BFCL's executor refuses to call (``execute_multi_turn_func_call``)."""
END_OF_TURN_ACTION = "Done."
CALL_TIMEOUT_S = 2.0
"""The most one executed call may take (pure-Python work is stopped there; C-level work is kept small by the guards)."""

INSTRUCTIONS = (
    "You help a user by calling tools. The user's requests arrive one turn at a time. To call tools, reply with "
    'JSON: {"name": "<tool>", "arguments": {...}}, or a JSON list of such calls to run in order. You then see '
    "each call's result and may call more tools. When the current request is complete (or cannot be done with "
    "the tools), reply in plain text without any tool call; that ends your turn. If the request lacks a required "
    "value, ask for it in plain text instead of guessing."
)


def _require_bfcl() -> Any:
    try:
        return importlib.import_module("bfcl_eval.constants.executable_backend_config")
    except ImportError as exc:
        raise BenchmarkUnavailableError(
            f"the BFCL suites need the bfcl-eval package ({exc}); install it with: {INSTALL_HINT}"
        ) from exc


def _data_file(*parts: str) -> Any:
    _require_bfcl()
    path = files("bfcl_eval") / "data"
    for part in parts:
        path = path / part
    return path


def _read_jsonl(path: Any) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkDataError(f"cannot read BFCL data file {path}: {exc}; reinstall bfcl-eval") from exc
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# -- data ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BfclEntry:
    """One multi-turn task: BFCL's raw entry, its ground truth, and its function docs split by availability."""

    id: str
    category: str
    raw: Mapping[str, Any]
    ground_truth: tuple[tuple[str, ...], ...]
    functions: tuple[Mapping[str, Any], ...]
    added_functions: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return len(self.raw["question"])

    @property
    def involved_classes(self) -> tuple[str, ...]:
        return tuple(self.raw["involved_classes"])

    @property
    def long_context(self) -> bool:
        return self.category == "long_context"


@functools.lru_cache(maxsize=32)
def _class_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    mapping = importlib.import_module("bfcl_eval.constants.executable_backend_config").MULTI_TURN_FUNC_DOC_FILE_MAPPING
    docs = _read_jsonl(_data_file("multi_turn_func_doc", mapping[class_name]))
    for doc in docs:
        doc["description"] = doc.get("description", "") + PYTHON_SYNTAX_HINT
    return tuple(docs)


@functools.lru_cache(maxsize=8)
def load_entries(category: str) -> tuple[BfclEntry, ...]:
    """Every task of one multi-turn category, in BFCL's order, with ground truth and docs (cached)."""
    if category not in CATEGORIES:
        raise BenchmarkDataError(
            f"unknown BFCL multi-turn category {category!r}; choose one of {', '.join(CATEGORIES)}"
        )
    file_name = f"{VERSION_PREFIX}_multi_turn_{category}.json"
    questions = _read_jsonl(_data_file(file_name))
    answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(_data_file("possible_answer", file_name))}
    entries = []
    for raw in questions:
        if raw["id"] not in answers:
            raise BenchmarkDataError(f"BFCL task {raw['id']} has no ground truth in possible_answer/{file_name}")
        docs = [copy.deepcopy(d) for cls in raw["involved_classes"] for d in _class_docs(cls)]
        added: dict[int, tuple[Mapping[str, Any], ...]] = {}
        for turn, names in raw.get("missed_function", {}).items():
            held = []
            for name in names:
                for i, doc in enumerate(docs):
                    if doc["name"] == name:
                        held.append(docs.pop(i))
                        break
            added[int(turn)] = tuple(held)
        ground_truth = tuple(tuple(turn) for turn in answers[raw["id"]])
        if len(ground_truth) != len(raw["question"]):
            raise BenchmarkDataError(f"BFCL task {raw['id']}: {len(raw['question'])} user turns but "
                                     f"{len(ground_truth)} ground-truth turns")
        entries.append(BfclEntry(raw["id"], category, raw, ground_truth, tuple(docs), added))
    return tuple(entries)


def get_entry(task_id: str) -> BfclEntry:
    """The task with this BFCL id (``multi_turn_base_12``)."""
    for category in sorted(CATEGORIES, key=len, reverse=True):
        if task_id.startswith(f"multi_turn_{category}_"):
            for entry in load_entries(category):
                if entry.id == task_id:
                    return entry
    raise BenchmarkDataError(f"no BFCL multi-turn task with id {task_id!r}")


# -- tool schemas ----------------------------------------------------------------------------------------------------
_TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "any": None}


def to_json_schema(schema: Any) -> Any:
    """A BFCL parameter doc as JSON Schema (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` -> ``array``)."""
    if isinstance(schema, list):
        return [to_json_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            mapped = _TYPE_MAP.get(value, value)
            if mapped is not None:
                out[key] = mapped
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        else:
            out[key] = to_json_schema(value)
    return out


def tool_schema(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool schema for one BFCL function doc (its ``response`` doc is left out)."""
    return {"type": "function", "function": {
        "name": doc["name"], "description": doc.get("description", ""),
        "parameters": to_json_schema(doc.get("parameters", {"type": "dict", "properties": {}})),
    }}


def render_tools(docs: Sequence[Mapping[str, Any]]) -> str:
    """One compact JSON line per function: name, description, parameters."""
    return "\n".join(json.dumps(tool_schema(d)["function"], ensure_ascii=False) for d in docs)


# -- calls -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One function call as executed: a name, positional and keyword arguments (Python literals)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def to_bfcl(self) -> str:
        """The call as BFCL's decoded model output writes it (``cd(folder='docs')``); ``eval``-able by BFCL."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def parse_python_call(text: str) -> Call:
    """``"mv(source='a', destination='b')"`` -> :class:`Call`; arguments must be Python literals."""
    node = parse_source(text.strip(), mode="eval").body
    return _call_from_node(node)


def _call_from_node(node: ast.AST) -> Call:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("each element must be a call like name(arg=value)")
    if any(k.arg is None for k in node.keywords):
        raise ValueError(f"{node.func.id}: **kwargs unpacking is not allowed")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError) as exc:
        raise ValueError(f"{node.func.id}: arguments must be literal values ({_exception_text(exc)})") from None
    problem = plain_data_problem(kwargs) or plain_data_problem(list(args))
    if problem:
        raise ValueError(f"{node.func.id}: {problem}")
    return Call(node.func.id, args, kwargs)


def parse_python_call_list(text: str) -> list[Call] | None:
    """BFCL's prompting format ``[f(a=1), g()]`` (brackets optional); None if the text is not a call list.

    Raises ``ValueError`` when the text is clearly meant as calls but does not parse.
    """
    body = text.strip("`\n ")
    if body.startswith("python"):
        body = body[len("python"):].strip()
    probe = body.lstrip("[").lstrip()
    if not probe or not (probe[0].isalpha() or probe[0] == "_"):
        return None
    head = probe.split("(", 1)[0]
    if "(" not in probe or not head.replace("_", "a").isalnum():
        return None
    if not body.startswith("["):
        body = "[" + body
    if not body.endswith("]"):
        body = body + "]"
    try:
        node = parse_source(body, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"the call list does not parse as Python: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ValueError("the call list is nested too deeply to parse") from None
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    return [_call_from_node(element) for element in node.elts]


class ApiState:
    """The live API instances of one task and BFCL's call semantics (method lookup, never ``eval``).

    Instances are built like ``execute_multi_turn_func_call`` does: a fresh instance per involved class,
    ``_load_scenario(deepcopy(initial_config[class]), long_context=...)`` for stateful classes; a method name
    maps to the last involved class that has it. Results are BFCL's strings: ``str`` as is, ``dict`` as JSON,
    anything else ``str()``; an exception gives ``"Error during execution: <message>"``.
    """

    def __init__(self, entry: BfclEntry) -> None:
        config = _require_bfcl()
        self.instances: dict[str, Any] = {}
        self.methods: dict[str, Any] = {}
        for class_name in entry.involved_classes:
            module = importlib.import_module(config.CLASS_FILE_PATH_MAPPING[class_name])
            instance = getattr(module, class_name)()
            if class_name not in config.STATELESS_CLASSES:
                instance._load_scenario(copy.deepcopy(entry.raw["initial_config"].get(class_name, {})),
                                        long_context=entry.long_context)
            self.instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):
                    self.methods[name] = method

    def execute(self, call: Call) -> str:
        """Run one call and return BFCL's result string (never raises).

        The model's arguments run under :func:`spade_tools.guard.guarded_call`: integers as ``BoundedInt`` (no
        power, shift or product over 4096 bits), a decimal context of its own (precision at most 1000, restored
        afterwards, as is mpmath's) and :data:`CALL_TIMEOUT_S` seconds; arguments that are not small plain data
        are refused before anything runs.
        """
        try:
            if call.name in DISALLOWED_NAMES:
                raise PermissionError(f"Function call {call.name} is not allowed.")
            method = self.methods.get(call.name)
            if method is None:
                raise NameError(f"name '{call.name}' is not defined")
            check_plain_data(dict(call.kwargs))
            check_plain_data(list(call.args))
            args, kwargs = guarded_arguments(list(call.args)), guarded_arguments(dict(call.kwargs))
            result = guarded_call(lambda: _result_text(method(*args, **kwargs)), timeout_s=CALL_TIMEOUT_S)
        except CallTimeout:
            return f"Error during execution: the call took longer than {CALL_TIMEOUT_S:g} s and was stopped"
        except Exception as exc:  # BFCL turns every failure into a result string
            return f"Error during execution: {_exception_text(exc)}"
        return result


    def keyword_call(self, call: Call) -> Call:
        """The same call with positional arguments bound to their parameter names (for JSON tool calls)."""
        method = self.methods.get(call.name)
        if method is None or not call.args:
            return call
        bound = inspect.signature(method).bind(*call.args, **dict(call.kwargs))
        return Call(call.name, (), dict(bound.arguments))


def _result_text(result: Any) -> str:
    """BFCL's result string: ``str`` as is, ``dict`` as JSON (``str()`` if that fails), anything else ``str()``."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except (TypeError, ValueError, RecursionError):
            pass
    try:
        return str(result)
    except (ValueError, RecursionError) as exc:  # an integer over Python's int-to-str digit limit, a cycle
        return f"Error during execution: the result cannot be shown ({exc})"


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception whose message itself fails to render
        return type(exc).__name__


def state_differences(model: ApiState, reference: ApiState) -> dict[str, list[str]]:
    """BFCL's state check: per class, the public attributes of the reference instance that the model's differs in."""
    out: dict[str, list[str]] = {}
    for class_name, ref in reference.instances.items():
        mine = model.instances[class_name]
        differing = [
            name for name in vars(ref) if not name.startswith("_") and getattr(mine, name) != getattr(ref, name)
        ]
        if differing:
            out[class_name] = differing
    return out


def missing_results(model_results: Sequence[str], expected: Sequence[str]) -> list[str]:
    """BFCL's response check: the expected results not found in the model's (as a multiset, any order)."""
    pool = list(model_results)
    missing = []
    for item in expected:
        try:
            pool.remove(item)
        except ValueError:
            missing.append(item)
    return missing


# -- the environment ---------------------------------------------------------------------------------------------------
def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role", "user") == "user")


class BfclMultiTurnEnv:
    """One BFCL multi-turn task in the SPADE inner-environment format (trusted, in-process)."""

    def __init__(self, entry: BfclEntry) -> None:
        self.entry = entry
        self._parser = _tool_parser()

    # -- episode -----------------------------------------------------------------------------------------------------
    def reset(self, rng: Any, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        self.stop_at_failure = bool(options.get("stop_at_failure", True))
        self.model = ApiState(self.entry)
        self.reference = ApiState(self.entry)
        self.tool_names = sorted(self.model.methods)
        self.turn = 0
        self.steps = 0  # executed steps in the current turn
        self.decoded: list[list[list[str]]] = []  # per turn, per executed step, BFCL call strings
        self.model_results: list[str] = []
        self.failure: dict[str, Any] | None = None
        self.turns_passed = 0
        self.finished = False
        tools = render_tools(self.entry.functions)
        first = _user_text(self.entry.raw["question"][0]) if self.entry.turns else ""
        obs = (f"Available tools (one JSON schema per line):\n{tools}\n\nUser (turn 1 of {self.entry.turns}):\n{first}")
        return obs, {"bfcl_id": self.entry.id, "bfcl_turn": 0}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        calls, ends_turn, problem = self._parse(action)
        info: dict[str, Any] = {"format_error": problem, "action_is_valid": problem is None, "bfcl_turn": self.turn}
        if calls:
            results = [self.model.execute(c) for c in calls]
            self.model_results.extend(results)
            self._turn_steps().append([c.to_bfcl() for c in calls])
            self.steps += 1
            if self.steps > MAXIMUM_STEP_LIMIT:
                if self.turn < self.entry.turns - 1:
                    self._fail(self.turn, "multi_turn:force_terminated",
                               f"more than {MAXIMUM_STEP_LIMIT} steps in turn {self.turn}; BFCL force-quits the task")
                    return self._final("", info)
                ends_turn = True  # BFCL still scores a force-quit in the last turn
            if not ends_turn:
                lines = [f"{i}. {c.to_bfcl()} -> {r}" for i, (c, r) in enumerate(zip(calls, results), 1)]
                obs = "Results:\n" + "\n".join(lines)
                return obs, 0.0, False, False, {**info, "success": False}
        self._end_turn()
        if self.finished or (self.failure is not None and self.stop_at_failure):
            note = f"The request could not be completed: {problem}" if problem else ""
            return self._final(note, info)
        return self._next_turn_observation(problem), 0.0, False, False, {**info, "success": False}

    def privileged_hint(self) -> str:
        names = [parse_python_call(c).name for c in self._turn_truth()]
        if not names:
            return "This request cannot be completed with the available tools and values; say so, or ask."
        return "Tools to call, in order: " + milestones({"name": n} for n in names)

    def reference_action(self) -> str:
        truth = [self.model.keyword_call(parse_python_call(c)) for c in self._turn_truth()]
        start = self.steps * MAX_CALLS_PER_ACTION
        chunk = truth[start:start + MAX_CALLS_PER_ACTION]
        if not chunk:
            return END_OF_TURN_ACTION
        return json.dumps([{"name": c.name, "arguments": dict(c.kwargs)} for c in chunk], ensure_ascii=False)

    # -- internals ---------------------------------------------------------------------------------------------------
    def _turn_steps(self) -> list[list[str]]:
        """The executed steps of the current turn (BFCL's decoded model result for it)."""
        while len(self.decoded) <= self.turn:
            self.decoded.append([])
        return self.decoded[self.turn]

    def _turn_truth(self) -> tuple[str, ...]:
        return self.entry.ground_truth[self.turn] if self.turn < self.entry.turns else ()

    def _parse(self, action: str) -> tuple[list[Call], bool, str | None]:
        """(calls to execute, whether the turn ends after them, format error).

        JSON tool calls first (the tool-use domain's parser), then BFCL's Python call list; a reply that is
        neither is plain text and ends the turn.
        """
        parsed = self._parser(action, [{"name": n, "parameters": {"type": "object"}} for n in self.tool_names])
        if parsed.ok and not parsed.value.plain_text:
            calls = [Call(c.name, (), dict(c.arguments)) for c in parsed.value.calls]
            return calls, parsed.value.final is not None, None
        try:
            python_calls = parse_python_call_list(action)
        except ValueError as exc:
            python_calls, python_error = None, str(exc)
        else:
            python_error = None
        if python_calls:
            unknown = [c.name for c in python_calls if c.name not in self.model.methods]
            if unknown:
                return [], True, f"unknown tool {unknown[0]!r}; available: {', '.join(self.tool_names)}"
            return python_calls, False, None
        if python_error:  # the text looks like BFCL's call list, so its problem is the useful message
            return [], True, f"{python_error}; write calls as JSON, e.g. {{\"name\": \"ls\", \"arguments\": {{}}}}"
        if not parsed.ok:
            return [], True, parsed.format_error
        return [], True, None

    def _end_turn(self) -> None:
        """Score the turn that just ended (BFCL's per-turn checks) and move to the next one."""
        self._turn_steps()
        truth = [parse_python_call(c) for c in self._turn_truth()]
        expected = [self.reference.execute(c) for c in truth]
        if truth and self.failure is None:
            problem = self._check_turn(expected)
            if problem is None:
                self.turns_passed += 1
            else:
                self._fail(self.turn, *problem)
        elif not truth and self.failure is None:
            self.turns_passed += 1
        self.turn += 1
        self.steps = 0
        self.finished = self.turn >= self.entry.turns

    def _check_turn(self, expected: list[str]) -> tuple[str, str] | None:
        if not self._turn_steps():
            return "multi_turn:empty_turn_model_response", f"Model response list is empty for turn {self.turn}"
        differences = state_differences(self.model, self.reference)
        if differences:
            where = "; ".join(f"{cls}: {', '.join(attrs)}" for cls, attrs in differences.items())
            return "multi_turn:instance_state_mismatch", f"API state differs from the ground-truth run ({where})"
        missing = missing_results(self.model_results, expected)
        if missing:
            shown = "; ".join(_clip(m, 120) for m in missing[:3])
            return ("multi_turn:execution_response_mismatch",
                    f"results of the ground-truth calls for turn {self.turn} never appeared: {shown}")
        return None

    def _fail(self, turn: int, error_type: str, message: str) -> None:
        if self.failure is None:
            self.failure = {"turn": turn, "error_type": error_type, "message": message}

    def _next_turn_observation(self, problem: str | None) -> str:
        lead = f"(Your last reply was not a valid tool call: {problem}. The turn has ended.)\n\n" if problem else ""
        added = self.entry.added_functions.get(self.turn)
        header = f"User (turn {self.turn + 1} of {self.entry.turns}):\n"
        if added:
            text = f"New tools are available:\n{render_tools(added)}\n{ADDITIONAL_FUNCTION_PROMPT}"
        else:
            text = _user_text(self.entry.raw["question"][self.turn])
        return lead + header + text

    def _final(self, note: str, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        success = self.failure is None and self.finished
        info = {
            **info, "success": success, "turns_passed": self.turns_passed, "bfcl_turns": self.entry.turns,
            "bfcl_decoded": self.decoded,
            "bfcl_error_type": None if self.failure is None else self.failure["error_type"],
            "bfcl_error": None if self.failure is None else self.failure["message"],
            "failed_turn": None if self.failure is None else self.failure["turn"],
        }
        text = note or ("All requests handled." if success else f"Task over: {info['bfcl_error']}")
        return text, 1.0 if success else 0.0, True, False, info


def _tool_parser() -> Any:
    """The tool-use domain's action parser (JSON calls, ``<tool_call>`` tags, fenced JSON)."""
    return parse_tool_action


# -- SpadeEnv and suites ---------------------------------------------------------------------------------------------
def manifest_for(entry: BfclEntry) -> EnvManifest:
    """The manifest of one task's environment (long enough for every turn at BFCL's step limit)."""
    return EnvManifest.from_dict({
        "name": f"BFCL.{entry.id}", "domain": "tool_use", "description": INSTRUCTIONS,
        "reward_range": [0.0, 1.0], "max_turns": min(1000, entry.turns * (MAXIMUM_STEP_LIMIT + 2)),
        "tools": sorted({d["name"] for d in entry.functions}
                        | {d["name"] for docs in entry.added_functions.values() for d in docs}),
        "tags": ["benchmark", "bfcl", f"bfcl_{entry.category}"], "max_obs_chars": 1_000_000,
        "max_action_chars": 32_768, "grounding": "Berkeley Function Calling Leaderboard v4, multi-turn",
        "extra": {"bfcl_id": entry.id, "category": entry.category},
    }, source=entry.id)


def make_env(entry: BfclEntry | str) -> SpadeEnv:
    """A fresh :class:`SpadeEnv` for one task (an entry or its BFCL id)."""
    entry = get_entry(entry) if isinstance(entry, str) else entry
    return trusted_env(manifest_for(entry), functools.partial(BfclMultiTurnEnv, entry), f"bfcl/{entry.id}")


SYSTEM_PROMPT = "{description}"


def load_suite(category: str, *, argument: str | None = None, limit: int | None = None, **_: Any) -> Suite:
    """The suite of one category: every task in BFCL's order (the first ``limit``)."""
    entries = load_entries(category)
    if limit is not None:
        entries = entries[:limit]
    tasks = tuple(EvalTask(e.id, functools.partial(make_env, e), 0, {}, {"category": category}) for e in entries)
    return Suite(f"bfcl-multi-turn-{category.replace('_', '-')}",
                 f"BFCL v4 multi-turn {category} ({len(tasks)} tasks)", tasks, SYSTEM_PROMPT, max_new_tokens=256,
                 tags=("bfcl", "tool_use"), batch_size=1)


def load_base(**kwargs: Any) -> Suite:
    return load_suite("base", **kwargs)


def load_miss_func(**kwargs: Any) -> Suite:
    return load_suite("miss_func", **kwargs)


def load_miss_param(**kwargs: Any) -> Suite:
    return load_suite("miss_param", **kwargs)


def load_long_context(**kwargs: Any) -> Suite:
    return load_suite("long_context", **kwargs)
