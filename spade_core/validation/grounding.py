"""Grounding against the document's content: what the agent sees while playing must come from the document.

Evidence is taken only from the task as played: the observations of every episode the validator ran and the
reference solver's actions. Terms there that appear in the document count, except terms the environment supplies
about itself (anything in its ``ENV_SPEC``: name, description, grounding note), the words of its identifiers,
stopwords and generic task wording (answer, compute, boxed, correct, ...). Numbers count from three digits (a
random two-digit number is too often somewhere in a document). The stage passes when at least
``grounding.min_terms`` distinct document terms are used and the document supplies at least ``grounding.min_share``
of the task's distinct content words (numbers aside: a game's random secret is not a document's to supply), so a label on a task that is otherwise generated (multiplication "about" the French
Revolution) does not pass because a few of its words are in the document.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from spade_core.memory.text import words_of
from spade_core.validation.report import StageResult, Verdict
from spade_registry.syntax import parse_source

if TYPE_CHECKING:
    from spade_core.validation.stages import Candidate

MAX_DOCUMENT_CHARS = 400_000
_TERM = re.compile(r"[^\W\d_][^\W\d_'\-]{3,}|\d{3,}(?:[.,]\d+)?")

STOPWORDS = frozenset("""
about above after again against also although among another anything around away back because been before behind
being below between both came cannot come could does doing done down during each either else enough even ever every
from further gets given goes going gone have having here hers herself himself however into itself just keep kept
know known last least less like made make many might more most much must near need neither never next none nothing
often once only onto other others otherwise ours ourselves over perhaps quite rather said same several shall should
show since some something sometimes still such take than that their theirs them themselves then there therefore
these they thing things this those though through thus together toward towards under unless until upon used using
very want well were what whatever when where whether which while whom whose will with within without would your
yours yourself yourselves first second third four five seven eight nine three zero one two six ten
""".split())

BOILERPLATE = frozenset("""
action actions agent answer answers attempt attempts boxed call calls check choose chosen compute computed correct
correctly current done enter error example expected feedback final find format game give guess guesses hint illegal
incorrect input invalid left legal list lower higher maximum minimum move moves number numbers observation option
options output pick play player players point points please question questions remaining reply respond result
results return right round rounds score select solve solved solution start state step steps task tasks text tool
tools total true false turn turns type valid value values win wins won wrong write integer integers
""".split())


def term(raw: str) -> str:
    """A comparable form: lower case, a plural ``s`` dropped, hyphens and apostrophes removed."""
    word = raw.lower().replace("-", "").replace("'", "")
    if word.isalpha() and len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def terms_of(text: str) -> set[str]:
    return {term(m) for m in _TERM.findall(text)}


CLAIM_TERMS = 2
"""An ENV_SPEC that names this many of the document's proper nouns presents the environment as being about it."""
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][^\W\d_]{3,})")


def proper_nouns(document: str) -> set[str]:
    """Terms the document writes capitalised somewhere other than at a sentence start: its names (people, places,
    events), which a task about the document would name and a generic one would not."""
    return {term(m) for line in document.splitlines() for m in _NAME.findall(line)} - STOPWORDS - BOILERPLATE


def spec_terms(source: str) -> set[str]:
    """Every term in the module's ``ENV_SPEC`` literal (and its docstrings): what it says about itself."""
    out: set[str] = set()
    try:
        tree = parse_source(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in node.targets):
            out |= {t for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    for t in terms_of(c.value)}
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                out |= terms_of(doc)
    return out


def identifier_terms(source: str) -> set[str]:
    """The words of every identifier in the code (``self.storming_date`` -> storming, date); string constants are
    not identifiers."""
    try:
        tree = parse_source(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {term(w) for name in names for w in words_of(name).split()}


def task_text(c: Candidate) -> Iterable[str]:
    """What the agent sees while playing (every observation) and what the reference solver answers."""
    for episode in c.all_episodes:
        yield episode.reset_obs
        for _action, obs, *_ in episode.steps:
            yield obs
    for episode in c.reference_episodes:
        for action, *_ in episode.steps:
            yield action


def check_grounding(c: Candidate) -> StageResult:
    assert c.manifest is not None
    if c.document is None:
        if c.manifest.grounding.strip() or c.manifest.doc_id:
            return StageResult("grounding", Verdict.SKIPPED, "no grounding document given, so the environment's "
                               "grounding note could not be checked against one (pass document=..., or "
                               "`spade validate --document FILE`)")
        return StageResult("grounding", Verdict.FAILED, "neither a grounding document nor a grounding note in ENV_SPEC",
                           ["the environment is not tied to any source"],
                           ["fill ENV_SPEC['grounding'] with what it draws on"])
    settings = c.config.grounding
    document = terms_of(c.document[:MAX_DOCUMENT_CHARS]) - STOPWORDS - BOILERPLATE
    own = spec_terms(c.source) | identifier_terms(c.source)
    content: set[str] = set()
    for text in task_text(c):
        content |= terms_of(text)
    content -= STOPWORDS | BOILERPLATE | own
    used = sorted(content & document)
    words = {t for t in content if not t[0].isdigit()}  # random numbers are not "content" a document could supply
    share = len(words & document) / len(words) if words else 1.0
    details = {"used": used[:40], "content_words": len(words), "share": round(share, 3)}
    excluded = sorted((terms_of(" ".join(task_text(c))) & document) & own)[:8]
    label_note = f"; terms the environment names itself ({', '.join(excluded)}) do not count" if excluded else ""
    problem = len(used) < settings.min_terms or share < settings.min_share
    if problem and not settings.require_use:
        claimed = sorted(spec_terms(c.source) & proper_nouns(c.document[:MAX_DOCUMENT_CHARS]))
        if len(claimed) < CLAIM_TERMS:
            return StageResult("grounding", Verdict.SKIPPED, "the environment neither draws on its document nor "
                               f"claims to ({len(used)} document terms in play, {share:.0%} of its content words; its "
                               "ENV_SPEC names none of the document's proper nouns), so grounding does not apply",
                               details=details)
        label_note += f"; its ENV_SPEC claims the document ({', '.join(claimed[:6])})"
    if len(used) < settings.min_terms:
        return StageResult(
            "grounding", Verdict.FAILED,
            f"what the agent sees while playing uses {len(used)} terms of the document "
            f"({', '.join(used[:6]) or 'none'}), fewer than {settings.min_terms}{label_note}",
            ["the task does not come from its document: the document is only a label"],
            ["take the task's facts, entities, numbers or rules from the document and show them in the observations"],
            details=details)
    if share < settings.min_share:
        return StageResult(
            "grounding", Verdict.FAILED,
            f"only {share:.0%} of the task's content words come from the document "
            f"({len(words & document)} of {len(words)}: {', '.join(sorted(words & document)[:6]) or 'none'}), under "
            f"{settings.min_share:.0%}{label_note}",
            ["the task content is generated (random numbers, made-up items) and only decorated with the document"],
            ["build the task from the document's facts rather than from random values"], details=details)
    return StageResult("grounding", Verdict.PASSED, f"the task uses {len(used)} terms of its document "
                       f"({share:.0%} of its content words; e.g. {', '.join(used[:6])})", details=details)

