"""Designer prompts: contract + imports + what the gate checks + domain guidance, then the worked example, the
grounding document, memory examples and failures to avoid.

The contract is stated once, here; the import list is generated from the sandbox allow-list and the "what the gate
checks" section from the rules of the validation stages in effect
(:func:`~spade_core.validation.stage_hook.stages_in_effect`), so the prompt cannot drift from what is enforced. Domain guidance adds only what is particular to its domain.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from spade_core.validation.stage_hook import stages_in_effect

CONTRACT = """\
Write ONE Python module, a multi-turn training environment:
- ENV_SPEC = {...}, a dict literal: "name" (new, CamelCase), "domain", "description", "reward_range" [low, high],
  "max_turns", "players" (1, or 2 for a game whose two seats the agent both plays), "difficulty" {knob: {"min",
  "max", "default"}} (each knob really changes difficulty), "grounding" (what it takes from the document),
  optional "tools", "tags".
- ONE plain class (no base class, no gymnasium):
    __init__(self, <difficulty knobs as keyword arguments with defaults>)
    reset(self, rng, options) -> (observation: str, info: dict)  # all randomness from rng: rng.randint, rng.choice,
                                                                 # rng.random, rng.shuffle, ...; never import random
    step(self, action: str) -> (observation: str, reward: float, terminated: bool, truncated: bool, info: dict)
    privileged_hint(self) -> str   # a plan, rule or intermediate fact that helps without giving the answer away
    reference_action(self) -> str  # the correct next action, computed from internal state
- info holds JSON data; info["success"] = True when solved; a malformed action gets an informative observation and
  info["format_error"] (never raise); a wrong answer gets feedback and, within max_turns, another try.
"""

def import_list(modules: Mapping[str, Sequence[str]], guidance: str = "") -> str:
    """``IMPORTS (only these ...): math (all but ...), json (loads, dumps), ...`` from the allow-list: each module's
    names, or the names of the real module it leaves out, whichever is shorter (both exact). A plugin's
    helper module that ``guidance`` documents (its API REFERENCE has ``from <module> import``) is named with a
    pointer there; other plugins' helper modules are left out (importable, but not this domain's material)."""
    parts = []
    for module in sorted(modules, key=lambda m: (m.startswith("spade"), m)):
        if module == "__future__":
            continue
        names = sorted(modules[module])
        missing = _missing(module, names)
        if module.startswith("spade"):
            if f"from {module} import" in guidance:
                parts.append(f"{module} (see the API REFERENCE)")
        else:
            listed = f"{module} ({', '.join(names)})"
            rest = None if missing is None else f"{module} (all but {', '.join(missing)})" if missing else \
                f"{module} (all)"
            parts.append(listed if rest is None or len(listed) <= len(rest) else rest)
    return "IMPORTS (only these modules and names; `import m` or `from m import name`): " + "; ".join(parts) + "."


def _missing(module: str, names: Sequence[str]) -> list[str] | None:
    """The real module's public names that the allow-list leaves out (None when it cannot be imported here)."""
    try:
        real = importlib.import_module(module)
    except ImportError:
        return None
    public = getattr(real, "__all__", None) or [n for n in dir(real) if not n.startswith("_")]
    return sorted(set(public) - set(names))


def gate_section(domain: str | None = None) -> str:
    """What the gate checks, one line per stage a designer can fail, from the rules of the stages in effect (plugins'
    too); a stage for some domains or answer kinds only is stated in the prompts of the domains it concerns."""
    lines = [f"- {stage.name}: {stage.rule}" for stage in stages_in_effect()
             if stage.rule and (domain is None and not stage.domains or stage.concerns(domain))]
    return ("WHAT THE GATE CHECKS (a rejection lists every failing stage):\n" + "\n".join(lines))


@dataclass(frozen=True)
class MemoryExample:
    """A stored environment shown to the designer: a good neighbour (its description) or a failure not to repeat
    (what went wrong)."""

    name: str
    description: str


@dataclass(frozen=True)
class DesignRequest:
    """Everything one designer prompt is built from. ``allowed_modules``: the allow-list (module -> names)."""

    domain: str
    guidance: str
    document_title: str
    document_text: str
    allowed_modules: Mapping[str, Sequence[str]]
    worked_example: str = ""
    neighbours: Sequence[MemoryExample] = field(default_factory=tuple)
    failures: Sequence[MemoryExample] = field(default_factory=tuple)
    max_document_chars: int = 1500


def system_message(request: DesignRequest) -> str:
    return (
        "You are the Environment Designer: you write training environments for a reasoning agent, hard enough "
        "that it needs the privileged hint, always solvable by the reference solution.\n\n"
        + CONTRACT + import_list(request.allowed_modules, request.guidance) + "\n\n" + gate_section(request.domain)
        + f"\n\nDomain: {request.domain}.\n{request.guidance.strip()}\n"
    )


def build_messages(request: DesignRequest) -> list[dict[str, str]]:
    """Chat messages for one new environment."""
    # The worked example comes first: it is the same in every prompt of a round, so a batched generator computes it
    # once for the whole batch (HFGenerator shares the common prefix); what varies per document follows it.
    parts = []
    if request.worked_example:
        parts.append("A complete example that passes the gate:\n```python\n" + request.worked_example.strip()
                     + "\n```")
    if request.document_text:
        parts.append(f"Document ({request.document_title}):\n{request.document_text[: request.max_document_chars]}")
    if request.neighbours:
        lines = "\n".join(f"- {n.name}: {n.description}" for n in request.neighbours)
        parts.append("Environments already in the pool (write something different):\n" + lines)
    if request.failures:
        lines = "\n".join(f"- {f.name}: {f.description}" for f in request.failures)
        parts.append("Recent failures, do not repeat these mistakes:\n" + lines)
    grounded = " grounded on the document above" if request.document_text else ""
    parts.append(f"Write one new {request.domain} environment{grounded}. Return only the module in a ```python block.")
    return [{"role": "system", "content": system_message(request)}, {"role": "user", "content": "\n\n".join(parts)}]


def repair_messages(messages: list[dict[str, str]], completion: str, feedback: str) -> list[dict[str, str]]:
    """The first request, the latest attempt and the validator's message on it. Earlier attempts are dropped (the
    latest one supersedes them), so a second repair is no longer than the first; what failed before is kept as a
    line in the feedback."""
    first = messages[:2]
    earlier = [m["content"] for m in messages[2:] if m["role"] == "user"]
    history = ""
    if earlier:
        lines = [text.splitlines()[0] for text in earlier if text.strip()]
        history = "Earlier attempts: " + " / ".join(lines) + "\n\n"
    return [
        *first,
        {"role": "assistant", "content": completion},
        {"role": "user", "content": f"{history}{feedback}\n\nReturn the corrected, complete module in one ```python "
                                    "block."},
    ]
