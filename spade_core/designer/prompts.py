"""Designer prompts: contract + domain guidance + grounding document + memory examples + failures to avoid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

CONTRACT = """\
Write ONE Python module that defines a multi-turn training environment:
- ENV_SPEC = {...}: a dict literal with "name" (letters/digits/_ only), "domain", "description", "reward_range"
  [low, high], "max_turns", "players" (1 unless a game for two seats), "difficulty" {knob: {"min", "max",
  "default"}}, "grounding" (what knowledge from the document it uses), optional "tags".
- exactly one plain class (no base class, no gymnasium) with:
    __init__(self, <difficulty knobs as keyword arguments>)
    reset(self, rng, options) -> (observation: str, info: dict)   # draw all randomness from rng (rng.randint,
                                                                  # rng.choice, rng.random, rng.shuffle, ...)
    step(self, action: str) -> (observation: str, reward: float, terminated: bool, truncated: bool, info: dict)
    privileged_hint(self) -> str       # helps without giving the answer away (a plan, an intermediate result)
    reference_action(self) -> str      # the correct next action, computed from internal state
- info may hold only JSON data; set info["success"] = True when solved; on a malformed action return an
  informative observation and info["format_error"] (never raise).
- Only these imports are available: {modules}. No files, no network, no eval/exec, no dunder attributes.
Return the module in a single ```python block.
"""


@dataclass(frozen=True)
class MemoryExample:
    """A stored environment shown to the designer: a good neighbour (its description) or a failure not to repeat
    (what went wrong)."""

    name: str
    description: str


@dataclass(frozen=True)
class DesignRequest:
    """Everything one designer prompt is built from."""

    domain: str
    guidance: str
    document_title: str
    document_text: str
    allowed_modules: Sequence[str]
    worked_example: str = ""
    neighbours: Sequence[MemoryExample] = field(default_factory=tuple)
    failures: Sequence[MemoryExample] = field(default_factory=tuple)
    max_document_chars: int = 1500


def build_messages(request: DesignRequest) -> list[dict[str, str]]:
    """Chat messages for one new environment."""
    system = (
        "You are the Environment Designer. You write executable training environments for a reasoning agent: "
        "hard enough that the agent needs the privileged hint, always solvable by the reference solution.\n\n"
        + CONTRACT.replace("{modules}", ", ".join(sorted(request.allowed_modules)))
        + f"\nDomain: {request.domain}.\n{request.guidance.strip()}\n"
    )
    # The worked example comes first: it is the same in every prompt of a round, so a batched generator computes it
    # once for the whole batch (HFGenerator shares the common prefix); what varies per document follows it.
    parts = []
    if request.worked_example:
        parts.append("A complete example of the format:\n```python\n" + request.worked_example.strip() + "\n```")
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
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def repair_messages(messages: list[dict[str, str]], completion: str, feedback: str) -> list[dict[str, str]]:
    """The conversation extended with the rejected attempt and the validator's message."""
    return [
        *messages,
        {"role": "assistant", "content": completion},
        {"role": "user", "content": f"{feedback}\n\nReturn the corrected, complete module in one ```python block."},
    ]
