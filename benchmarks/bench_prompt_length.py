"""Designer prompt length per domain: characters of a first request and of a second repair (the request, the
latest attempt and the feedback), as the designer loop builds them, beside the lengths measured on the previous
prompt layout (the contract stated twice, two import lists, every earlier attempt resent on each repair).

    python benchmarks/bench_prompt_length.py [--save]

The document is the grounding corpus's French Revolution text (the loop cuts it to ``max_document_chars``); an
attempt is the domain's worked example (a full module) and a feedback is 600 characters.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from saved_figures import Figure, add_save_option, save_run

from spade_core.designer.loop import DesignConfig, Designer
from spade_core.designer.prompts import repair_messages

DOCUMENT = Path(__file__).parents[1] / "tests" / "validation" / "grounding_corpus" / "french_revolution.txt"
FEEDBACK = "x" * 600
BEFORE = {  # (system, first request, second repair) characters on the previous layout, same inputs
    "math": (6713, 16108, 33708), "code": (7421, 24000, 55966), "tool_use": (19348, 25613, 36943),
    "games": (6748, 16441, 34633),
}


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str


def chars(messages: list[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in messages)


def measure(domain: str) -> tuple[int, int, int]:
    designer = Designer(None, None, None, config=DesignConfig(domain=domain, calibrate=False))
    messages = designer.messages_for(Document("d", "French Revolution", DOCUMENT.read_text()))
    attempt = designer._example
    second = repair_messages(repair_messages(messages, attempt, FEEDBACK), attempt, FEEDBACK)
    return len(messages[0]["content"]), chars(messages), chars(second)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_save_option(parser)
    args = parser.parse_args()
    figures = {}
    print(f"{'domain':<10}{'system':>16}{'first request':>22}{'second repair':>22}   (now / before)")
    for domain, before in BEFORE.items():
        now = measure(domain)
        cells = [f"{n:>7} / {b:<7}" for n, b in zip(now, before, strict=True)]
        print(f"{domain:<10}{cells[0]:>16}{cells[1]:>22}{cells[2]:>22}")
        figures[f"{domain}_first_chars"] = Figure(now[1], decimals=0)
        figures[f"{domain}_second_repair_chars"] = Figure(now[2], decimals=0)
        figures[f"{domain}_first_chars_before"] = Figure(before[1], decimals=0)
        figures[f"{domain}_second_repair_chars_before"] = Figure(before[2], decimals=0)
    if args.save:
        save_run("bench_prompt_length", args.save, figures)


if __name__ == "__main__":
    main()
