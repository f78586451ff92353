"""The small world's design language: a designer completion is a short program, not a Python module.

```env
family: relay
knobs: band=2 mode=1
```

(the Chain family: ``family: chain`` and ``knobs: band=2 mode=1 depth=3``).

:func:`extract_design` is the extraction step for this language (what :func:`spade_core.designer.parsing.
extract_module` is for modules): it finds the block (a final unterminated block counts, as a completion cut by its
token budget is), reads the family and the knob assignments, and says exactly what is wrong otherwise. It checks
syntax only: a knob value out of its range compiles into a module whose manifest the validation pipeline rejects.
"""

from __future__ import annotations

from spade_core import linear_re
from spade_core.designer.parsing import ExtractionError
from spade_core.linear_re import DIGIT
from spade_core.smallworld.family import (
    BANDS,
    CHAIN_FAMILY,
    CHAIN_MODES,
    DEPTHS,
    FAMILIES,
    FAMILY,
    MODES,
    Design,
    knob_values,
)

OPENING = "```env\nfamily: relay\nknobs:"
"""What the designer's reply starts with (the prompt ends with it: the model writes the knob assignments)."""


def opening(family: str = FAMILY) -> str:
    """:data:`OPENING` for ``family``."""
    return OPENING.replace(f"family: {FAMILY}", f"family: {family}")

_BLOCK = linear_re.compile(r"(?s)```env[ \t]*\n(.*?)(?:```|\z)")
MAX_COMPLETION_CHARS = 32_768
"""Only this much of a completion is searched for the ```env block (a design is a few lines)."""
_ASSIGNMENT = linear_re.compile(rf"([a-z_]+)=(-?{DIGIT}+)")


class DesignLanguageError(ExtractionError):
    """The completion holds no well-formed design program; the message says what was found instead."""


def design_reply(design: Design) -> str:
    """What the designer writes after :func:`opening` for ``design``: its knob assignments (the format pass's
    designer turns and the designer's edits, ``WorldConfig.edit_share``)."""
    return f" {design.label}"


def render_design(design: Design) -> str:
    """The canonical program of a design."""
    return f"{opening(design.family)}{design_reply(design)}\n```"


def extract_design(completion: str) -> Design:
    """The design in ``completion`` (a whole reply, opening included); raise :class:`DesignLanguageError`."""
    if not isinstance(completion, str) or not completion.strip():
        raise DesignLanguageError("the completion is empty; answer with one ```env block")
    match = _BLOCK.search(completion[:MAX_COMPLETION_CHARS])
    if match is None:
        raise DesignLanguageError("found no ```env block; answer with ```env, a 'family:' line and a 'knobs:' line")
    fields: dict[str, str] = {}
    for line in match.group(1).splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep or key.strip() not in ("family", "knobs"):
            raise DesignLanguageError(f"unexpected line {line.strip()[:40]!r}; the block has a 'family:' and a "
                                      "'knobs:' line only")
        if key.strip() in fields:
            raise DesignLanguageError(f"the {key.strip()!r} line appears twice")
        fields[key.strip()] = value.strip()
    family = fields.get("family")
    if family not in FAMILIES:
        raise DesignLanguageError(f"family {family!r} is unknown; the families are {', '.join(FAMILIES)}")
    knobs = tuple(knob_values(family))
    knobs_text = fields.get("knobs", "")
    pairs = _ASSIGNMENT.findall(knobs_text)
    leftover = _ASSIGNMENT.sub("", knobs_text).strip()
    if leftover:
        raise DesignLanguageError(f"the knobs line has {leftover[:40]!r} besides name=integer assignments")
    values: dict[str, int] = {}
    for name, value in pairs:
        if name not in knobs:
            raise DesignLanguageError(f"knob {name!r} is unknown; the family's knobs are {', '.join(knobs)}")
        if name in values:
            raise DesignLanguageError(f"knob {name!r} is set twice")
        values[name] = int(value)
    missing = [k for k in knobs if k not in values]
    if missing:
        depth = f" depth=<1-{DEPTHS}>" if family == CHAIN_FAMILY else ""
        modes = CHAIN_MODES if family == CHAIN_FAMILY else MODES
        raise DesignLanguageError(f"knob(s) {', '.join(missing)} not set; write knobs: band=<0-{BANDS - 1}> "
                                  f"mode=<0-{len(modes) - 1}>{depth}")
    if family == CHAIN_FAMILY:
        return Design(values["band"], values["mode"], values["depth"], CHAIN_FAMILY)
    return Design(values["band"], values["mode"])
