"""The prompt states the gate: one "what the gate checks" section generated from the stages' own rules, one import
list generated from the sandbox allow-list, the contract once, and a bounded length per domain."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from spade_core.designer.loop import DesignConfig, Designer
from spade_core.designer.prompts import CONTRACT, gate_section, import_list, repair_messages
from spade_core.plugins import get_plugins
from spade_core.sandbox.allowlist import merged_allowlist
from spade_core.validation.stage_list import STAGES

DOMAINS = ("math", "code", "tool_use", "games")
BENCH = Path(__file__).parents[2] / "benchmarks" / "bench_prompt_length.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_prompt_length", BENCH)
    assert spec is not None and spec.loader is not None
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def test_every_stage_a_designer_can_fail_states_its_rule_in_the_gate_section() -> None:
    section = gate_section()
    for stage in STAGES:
        if stage.rule:
            assert f"- {stage.name}: {stage.rule}" in section
        else:  # a stage with no rule is one a designer cannot fail on its own code
            assert stage.name in ("behaviour",), stage.name
    assert len([s for s in STAGES if s.rule]) == section.count("\n- ") + section.startswith("- ")


def test_the_import_list_is_the_allow_list() -> None:
    allow = {module: sorted(names) for module, names in merged_allowlist().items()}
    text = import_list(allow, guidance="from spade_domains.math.verify import x")
    for module in allow:
        if module.startswith("spade") and module != "spade_domains.math.verify" or module == "__future__":
            assert f" {module} (" not in text
        else:
            assert f" {module} (" in text, module
    assert "functools (cache, cmp_to_key, lru_cache, partial, reduce)" in text  # a short list is spelled out
    assert "operator (all but attrgetter" in text and "methodcaller" in text  # or what the module leaves out


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_contract_and_imports_are_stated_once(domain: str) -> None:
    spec = {d.name: d for d in get_plugins().collect_flat("spade_domains")}[domain]
    guidance = spec.designer_guidance
    assert "THE CONTRACT" not in guidance and "Allowed imports" not in guidance and "IMPORTS" not in guidance
    designer = Designer(None, None, None, config=DesignConfig(domain=domain, calibrate=False))
    bench = _bench()
    system = designer.messages_for(bench.Document("d", "T", "text"))[0]["content"]
    assert system.count("ENV_SPEC = {") == 1 and system.count("IMPORTS (") == 1 and CONTRACT in system
    assert system.count("WHAT THE GATE CHECKS") == 1


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_prompt_is_shorter_than_before_on_repairs_and_bounded_on_first_tries(domain: str) -> None:
    bench = _bench()
    system, first, second = bench.measure(domain)
    before = bench.BEFORE[domain]
    print(f"{domain}: system {system} (before {before[0]}), first {first} (before {before[1]}), second repair "
          f"{second} (before {before[2]})")
    assert second < before[2]  # a repair resends the latest attempt only
    # the gate section is new (one line per stage rule, six property stages' among them); the contract, imports
    # and guidance were cut for it
    assert first <= before[1] * 1.15
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    one = repair_messages(messages, "a" * 1000, "f")
    two = repair_messages(one, "b" * 1000, "g")
    assert sum(len(m["content"]) for m in two) < sum(len(m["content"]) for m in one) + 100


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_worked_example_in_the_prompt_passes_every_rule(domain: str) -> None:
    """The example the prompt shows passes the whole gate, grounding document included (a game example with
    balanced seats: random opening moves and tie-breaks)."""
    from spade_core.validation import validate_source
    from spade_core.validation.config import DESIGN_VALIDATION

    designer = Designer(None, None, None, config=DesignConfig(domain=domain, calibrate=False))
    document = (Path(__file__).parents[1] / "validation" / "grounding_corpus" / "pie_baking.txt").read_text()
    report = validate_source(designer._example, document=document, config=DESIGN_VALIDATION)
    assert report.accepted, report.repair_message()
    assert {s.stage for s in report.skipped} == {"exact_duplicate", "novelty", "calibration"}  # no store/memory/probe
