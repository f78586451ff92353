"""Every domain's designer guidance is generated from the code: the API reference lists every name environment code
may import with its exact signature, tools with their argument schemas and result shapes, and every call the
hand-written guidance mentions exists and accepts the arguments it is shown with."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest

from spade_core.designer.api_reference import resolve, schema_text, signature_text, tool_line
from spade_core.designer.domain_material import domain_guidance
from spade_core.designer.prompts import CONTRACT
from spade_core.plugins import get_plugins

DOMAINS = {d.name: d for d in get_plugins().collect_flat("spade_domains") if d.worked_examples}
GUIDANCE = {name: domain_guidance(spec) for name, spec in DOMAINS.items()}
CONTRACT_METHODS = {"__init__", "reset", "step", "privileged_hint", "reference_action"}
MENTION = re.compile(r"(?<![\w\"'])((?:[\w]+\.)*)([A-Za-z_]\w*)\(([^()]*)\)")
HEADER = "API REFERENCE (generated"


def sandbox_modules() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for _, contribution in get_plugins().collect("spade_sandbox_modules"):
        for module, names in contribution.items():
            merged.setdefault(module, {}).update(names)
    return merged


def referenced(guidance: str) -> dict[str, dict[str, str]]:
    """The modules and names the guidance's API reference lists (``from M import a, b`` lines)."""
    modules = sandbox_modules()
    out: dict[str, dict[str, str]] = {}
    for match in re.finditer(r"^from ([\w.]+) import (.+)$", guidance[guidance.index(HEADER):], re.MULTILINE):
        out[match.group(1)] = {name: modules[match.group(1)][name] for name in match.group(2).split(", ")}
    return out


def api_callables(guidance: str) -> dict[str, list[Any]]:
    """Name -> what it can mean: exported functions and classes, methods of exported classes, tools (ToolDef)."""
    found: dict[str, list[Any]] = {}
    for names in referenced(guidance).values():
        for name, target in names.items():
            obj = resolve(target)
            found.setdefault(name, []).append(obj)
            if inspect.isclass(obj):
                for method, value in vars(obj).items():
                    if callable(value) and not method.startswith("_"):
                        found.setdefault(method, []).append(getattr(obj, method))
                for base_method in ("call", "snapshot"):
                    if hasattr(obj, base_method):
                        found.setdefault(base_method, []).append(getattr(obj, base_method))
                for definition in getattr(obj, "TOOL_DEFS", ()):
                    found.setdefault(definition.name, []).append(definition)
    return found


def mentions(text: str) -> Iterator[tuple[str, list[str]]]:
    """``name(a, b=1)`` calls in ``text`` (not inside a quoted example) as (name, argument texts)."""
    for match in MENTION.finditer(text):
        before = text[:match.start()]
        if before.count('"') % 2 or before.split("\n")[-1].count("'") % 2:
            continue  # inside a quoted example such as raises_test("parse_age('-3')", ...)
        args = [a.strip() for a in match.group(3).split(",") if a.strip()]
        yield match.group(2), args


def accepts(obj: Any, args: list[str]) -> bool:
    if hasattr(obj, "parameters") and hasattr(obj, "description"):  # a tool: arguments are JSON keys
        properties = (obj.parameters or {}).get("properties") or {}
        return all(a.split("=")[0].strip() in properties for a in args)
    signature = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    positional = [a for a in args if not re.match(r"^\w+\s*=[^=]", a) and not a.startswith("*")]
    keywords = [a.split("=")[0].strip() for a in args if re.match(r"^\w+\s*=[^=]", a)]
    var_positional = any(p.kind is p.VAR_POSITIONAL for p in params)
    slots = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return (var_positional or len(positional) <= len(slots)) and all(k in names for k in keywords)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_the_reference_lists_every_importable_name_with_its_exact_signature(domain: str) -> None:
    guidance = GUIDANCE[domain]
    listed = referenced(guidance)
    assert listed, f"{domain}: no API reference in the guidance"
    reference = guidance[guidance.index(HEADER):]
    for names in listed.values():
        for name, target in names.items():
            obj = resolve(target)
            if inspect.isclass(obj):
                init = "()" if obj.__init__ is object.__init__ else signature_text(obj.__init__, drop_first=True)
                assert f"  {name}{init.removesuffix(' -> None')}\n" in reference, name
                for definition in getattr(obj, "TOOL_DEFS", ()):
                    assert tool_line(definition, obj) in reference
                    for argument, schema in ((definition.parameters or {}).get("properties") or {}).items():
                        assert f"{argument}" in reference and schema_text(schema) in reference
            else:
                assert f"  {name}{signature_text(obj)}\n" in reference, name


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_call_the_guidance_mentions_exists_with_those_arguments(domain: str) -> None:
    guidance = GUIDANCE[domain]
    prose = CONTRACT + guidance[:guidance.index(HEADER)]
    api = api_callables(guidance)
    checked = 0
    for name, args in mentions(prose):
        if name in CONTRACT_METHODS or name.startswith("_"):
            continue  # the environment's own methods
        assert name in api, f"{domain}: the guidance mentions {name}() but no importable name or tool has it"
        assert any(accepts(obj, args) for obj in api[name]), f"{domain}: {name}({', '.join(args)}) does not bind"
        checked += 1
    assert checked or domain == "math"


def test_tool_results_show_their_shape() -> None:
    reference = GUIDANCE["tool_use"]
    assert 'insert(table: string, rows: array[1..100] of {name: string|number|null}) -> {"table", "inserted"}' in reference
    assert "SqlDatabase(tables: Mapping[str, Mapping[str, Any]] | None = None)" in reference
    assert '"primary_key": "sku"' in reference  # the table format, from the class docstring
    assert "Toolbox(*tools: ToolSet)" in reference


def test_a_mention_that_does_not_bind_is_caught() -> None:
    api = api_callables(GUIDANCE["code"])
    assert not any(accepts(obj, ["result", "visible", "labels", "limit", "extra"]) for obj in api["describe_results"])
    assert not any(accepts(obj, ["results=x"]) for obj in api["describe_results"])
    assert any(accepts(obj, ["result", "visible", "labels"]) for obj in api["describe_results"])


def test_the_code_domain_can_test_for_exceptions() -> None:
    from spade_domains.code.verify import raises_test, run_tests

    code = "def half(n):\n    if n % 2:\n        raise ValueError('odd')\n    return n // 2\n"
    result = run_tests(code, [raises_test("half(3)", "ValueError"), raises_test("half(4)", "ValueError"),
                              raises_test("half('x')", "ValueError")])
    assert [r["ok"] for r in result["results"]] == [True, False, False]
    assert "expected ValueError, got 2" in result["results"][1]["error"]
    assert "TypeError" in result["results"][2]["error"]
    with pytest.raises(ValueError, match="exception class name"):
        raises_test("half(3)", "ValueError:\n    pass\nimport os")
