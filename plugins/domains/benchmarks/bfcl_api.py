"""BFCL's execution and checks: the live API instances of one task, calls run against them with BFCL's result
strings (by method lookup, never ``eval`` of model text), and the two checks BFCL's ``multi_turn_checker`` makes
after a turn: the instances' public state equals a ground-truth run's, and the ground truth's results all appeared.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
from collections.abc import Sequence
from typing import Any

from spade_domains.benchmarks.bfcl_calls import Call, exception_text
from spade_domains.benchmarks.bfcl_data import BfclEntry, require_bfcl
from spade_tools.guard import CallTimeout, check_plain_data, guarded_arguments, guarded_call

DISALLOWED_NAMES = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")
"""Names BFCL's executor refuses to call (``execute_multi_turn_func_call``)."""
CALL_TIMEOUT_S = 2.0
"""The most one executed call may take (pure-Python work is stopped there; C-level work is kept small by the guards)."""


class ApiState:
    """The live API instances of one task and BFCL's call semantics (method lookup, never ``eval``).

    Instances are built like ``execute_multi_turn_func_call`` does: a fresh instance per involved class,
    ``_load_scenario(deepcopy(initial_config[class]), long_context=...)`` for stateful classes; a method name
    maps to the last involved class that has it. Results are BFCL's strings: ``str`` as is, ``dict`` as JSON,
    anything else ``str()``; an exception gives ``"Error during execution: <message>"``.
    """

    def __init__(self, entry: BfclEntry) -> None:
        config = require_bfcl()
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
            return f"Error during execution: {exception_text(exc)}"
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
