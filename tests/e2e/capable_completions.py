"""Completions a capable designer model writes (``completions/<domain>.md``: prose around the module, fences inside
string literals) and the documents they are grounded on (``completions/documents.jsonl``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).parent / "completions"
DOMAINS = ("math", "games", "tool_use", "code")
COMPLETIONS = {domain: (HERE / f"{domain}.md").read_text(encoding="utf-8") for domain in DOMAINS}
DOCUMENTS = {json.loads(line)["id"]: line for line in (HERE / "documents.jsonl").read_text().splitlines()}
_DOMAIN = re.compile(r"^Domain: (\w+)\.$", re.MULTILINE)


def by_domain(messages: list[dict[str, str]]) -> str:
    """The canned completion of the domain the designer prompt asks for."""
    found = _DOMAIN.search(messages[0]["content"])
    assert found, "not a designer prompt"
    return COMPLETIONS[found.group(1)]
