"""Grounding: the document makes designs diverse and realistic when its facts are the task's data, so grounding is
measured on what the task's *answers* take from the document, not on the words it shows.

A document fact in the code is a literal (a string whose content words are the document's, a number of two or more
digits the document states) outside ``ENV_SPEC`` and docstrings. The stage perturbs those literals in a copy of the
module (every letter of a string shifted, every number moved) and replays the reference solution on the grounding
seeds:

- ``dependence``: the share of seeds whose reference answers change when every document literal is perturbed. Text
  pasted into an observation changes no answer, so it counts for nothing; a fact table the task draws from does.
- ``facts``: how many document literals change the answers on their own (each perturbed alone, at most
  :data:`MAX_FACT_PROBES` of them, those in the answers first): a single document number added to a generated task is
  one fact, a task built from the document uses several.
- ``score`` = dependence x min(1, facts / ``min_facts``), in [0, 1]; ``grounded`` when it reaches ``min_score``.
- ``variety`` (recorded, not scored): how many distinct sets of deciding facts the seeds have; a fact table that
  each seed draws from has many, a task that bolts the same document numbers onto every seed has one.

Nothing here reads ``ENV_SPEC`` (an honest grounding note is never held against a task) and no vocabulary test
decides anything (a word game built from the document's words is judged by its answers like any other task). The
score is kept in the report (so in the record), shown in reports and available to memory and the designer's reward.
In the designer loop it is a score, not a reject: a task grounded in the document's *procedure* (a sieve the
document describes, its rules quoted to the agent) changes no answer when literals change and scores 0 like a
decorated one, so no mechanical test here is strong enough evidence to reject. With ``require_use`` (``spade
validate --document``, where the user asks whether the task is built from that document) a task under
``min_score`` fails. ``decorated`` in the details flags observations that quote :data:`QUOTE_WORDS` consecutive
document words while no answer depends on the document.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Iterable
from dataclasses import dataclass

from spade_core import linear_re
from spade_core.linear_re import DIGIT
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import EnvFactory, Episode, play, reference_policy
from spade_core.validation.report import StageResult, Verdict
from spade_registry.hashing import content_hash
from spade_registry.syntax import parse_source

MAX_DOCUMENT_CHARS = 400_000
GROUNDING_SEEDS = 8
"""Reference seeds replayed on the perturbed module."""
MAX_FACT_PROBES = 32
"""Document literals perturbed one at a time (each costs one module load and a few episodes): those in the reference
answers first, then those the agent never sees (data the answers are computed from), then the rest."""
FACT_PROBE_SECONDS = 4.0
"""Wall time the one-at-a-time probes may take; past it the facts found so far are counted (a lower bound, said in
the details), so an environment with slow steps (code tasks run tests) does not spend its time budget here."""
QUOTE_WORDS = 8
"""This many consecutive document words in an observation are a quotation."""
SHIFT = 7
_LETTER = r"\pL\p{Nl}\p{No}"  # Python's [^\W\d_]: word characters other than decimal digits and "_"
_TERM = linear_re.compile(rf"[{_LETTER}][{_LETTER}]{{3,}}|{DIGIT}{{3,}}(?:[.,]{DIGIT}+)?")
_WORD = linear_re.compile(r"[\pL\pN]+")
_NUMBER = linear_re.compile(rf"{DIGIT}+(?:\.{DIGIT}+)?")
_LETTERS = linear_re.compile(r"[A-Za-z]+")

GROUNDING_RULE = ("scored, not a reject: how far the document's facts are the data each seed draws and decide the "
                  "answers")

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
    return {term(m) for m in _TERM.findall(text[:MAX_DOCUMENT_CHARS])}


def content_terms(text: str) -> set[str]:
    return terms_of(text) - STOPWORDS - BOILERPLATE


@dataclass(frozen=True)
class Literal:
    """One document fact in the code: which constant it is (its index in :func:`_constants` order) and what it
    holds."""

    index: int
    line: int
    value: str | int | float

    @property
    def text(self) -> str:
        return self.value if isinstance(self.value, str) else _number_text(self.value)


def _number_text(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _skipped_nodes(tree: ast.Module) -> set[int]:
    """ids of the constants that are not task data: ENV_SPEC's and the docstrings."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in node.targets):
            out |= {id(c) for c in ast.walk(node.value)}
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _constants(tree: ast.Module) -> Iterable[ast.Constant]:
    skipped = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in skipped and hasattr(node, "lineno"):
            yield node


def document_literals(source: str, document: str) -> list[Literal]:
    """The code's literals that state the document's facts: strings whose content words are mostly the document's
    (at least one of them), numbers of two or more digits the document states."""
    try:
        tree = parse_source(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    words = content_terms(document)
    numbers = set(_NUMBER.findall(document))
    out: list[Literal] = []
    for index, node in enumerate(_constants(tree)):
        value = node.value
        if isinstance(value, str):
            own = content_terms(value)
            if own and len(own & words) * 2 >= len(own):
                out.append(Literal(index, node.lineno, value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 10:
            if _number_text(value) in numbers:
                out.append(Literal(index, node.lineno, value))
    return out


def _shift_letters(text: str) -> str:
    def shift(match: linear_re.Match) -> str:
        return "".join(chr((ord(ch) - base + SHIFT) % 26 + base) for ch in match.group()
                       for base in [ord("a") if ch.islower() else ord("A")])

    def bump(match: linear_re.Match) -> str:
        digits = match.group()
        return str(int(digits) + SHIFT) if "." not in digits else str(float(digits) + SHIFT)

    return _NUMBER.sub(bump, _LETTERS.sub(shift, text))


def perturbed(value: str | int | float) -> str | int | float:
    """The same kind of literal with another value: letters shifted, numbers moved."""
    if isinstance(value, str):
        return _shift_letters(value)
    return value + SHIFT if isinstance(value, int) else value + SHIFT + 0.25


def perturbed_source(source: str, targets: Iterable[Literal]) -> str:
    """``source`` with the literals at ``targets`` perturbed (ENV_SPEC and docstrings unchanged)."""
    where = {t.index for t in targets}
    tree = parse_source(source)
    for index, node in enumerate(_constants(tree)):
        if index in where:
            node.value = perturbed(node.value)
    return ast.unparse(tree)


def quotes(text: str, document_grams: set[tuple[str, ...]]) -> bool:
    """Whether ``text`` holds :data:`QUOTE_WORDS` consecutive words of the document."""
    words = [w.lower() for w in _WORD.findall(text[:MAX_DOCUMENT_CHARS])]
    return any(tuple(words[i:i + QUOTE_WORDS]) in document_grams for i in range(len(words) - QUOTE_WORDS + 1))


def _grams(text: str) -> set[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text[:MAX_DOCUMENT_CHARS])]
    return {tuple(words[i:i + QUOTE_WORDS]) for i in range(len(words) - QUOTE_WORDS + 1)}


def _played_text(episode: Episode) -> str:
    return "\n".join([episode.reset_obs, *(s[1] for s in episode.steps), *(s[0] for s in episode.steps)])


def _changed_seeds(c: Candidate, source: str, episodes: list[Episode]) -> list[int]:
    """Seeds whose reference answers differ on ``source`` (a perturbed copy); a copy that fails to load or errors
    counts as unchanged (no credit for breaking). The copies of one candidate are one family: they share a sandbox
    worker instead of each starting one."""
    assert c.manifest is not None
    env_id = f"grounding:{c.manifest.name}"
    handles = c.handle_factory_for(source, env_id, family=f"grounding:{content_hash(c.source)}")
    factory = EnvFactory(c.manifest, handles, env_id)
    changed: list[int] = []
    try:
        env = factory()
        for episode in c.clock.items(episodes, "perturbed replays"):
            other = play(env, episode.seed, reference_policy)
            if other.error is None and other.actions != episode.actions:
                changed.append(episode.seed)
    except Exception:  # a perturbed copy that cannot run earns nothing
        return changed
    finally:
        factory.close_all()
    return changed


@dataclass
class GroundingEvidence:
    literals: int
    in_play: int
    dependence: float
    facts: int
    quoted: bool
    score: float
    examples: list[str]
    probed_all: bool  # False: the fact probes ran out of time (facts is a lower bound)
    variety: int  # distinct sets of deciding facts over the seeds: 1 when every seed uses the same facts


def measure(c: Candidate, min_facts: int) -> GroundingEvidence:
    """Replay the reference on perturbed copies of the module (see the module docstring)."""
    assert c.document is not None
    document = c.document[:MAX_DOCUMENT_CHARS]
    episodes = [e for e in c.reference_episodes if e.error is None and e.steps]
    episodes = list({e.seed: e for e in episodes}.values())[:GROUNDING_SEEDS]
    grams = _grams(document)
    quoted = any(quotes(e.reset_obs, grams) or any(quotes(s[1], grams) for s in e.steps)
                 for e in c.all_episodes[:64])
    literals = document_literals(c.source, document)
    played = "\n".join(_played_text(e) for e in episodes)
    in_play = [lit for lit in literals if lit.text in played]
    if not literals or not episodes:
        return GroundingEvidence(len(literals), len(in_play), 0.0, 0, quoted, 0.0, [], True, 0)
    changed = _changed_seeds(c, perturbed_source(c.source, literals), episodes)
    dependence = len(changed) / len(episodes)
    facts: list[Literal] = []
    probed_all = True
    deciding: dict[int, set[int]] = {}  # seed -> the facts that decide its answers
    if changed:
        answers = "\n".join(a for e in episodes for a in e.actions)
        probes = sorted(literals, key=lambda lit: (lit.text not in answers, lit in in_play))[:MAX_FACT_PROBES]
        on = [e for e in episodes if e.seed in changed]
        started = time.perf_counter()
        for lit in c.clock.items(probes, "fact perturbations"):
            if time.perf_counter() - started > FACT_PROBE_SECONDS:
                probed_all = False
                break
            hit = _changed_seeds(c, perturbed_source(c.source, [lit]), on)
            if hit:
                facts.append(lit)
                for seed in hit:
                    deciding.setdefault(seed, set()).add(lit.index)
    score = dependence * min(1.0, len(facts) / max(1, min_facts))
    return GroundingEvidence(len(literals), len(in_play), round(dependence, 3), len(facts), quoted, round(score, 3),
                             [f.text[:40] for f in facts[:6]], probed_all,
                             len({frozenset(v) for v in deciding.values()}))


def check_grounding(c: Candidate) -> StageResult:
    assert c.manifest is not None
    if c.document is None:
        if c.manifest.grounding.strip() or c.manifest.doc_id:
            return StageResult("grounding", Verdict.SKIPPED, "no grounding document given, so the environment's "
                               "grounding could not be measured against one (pass document=..., or "
                               "`spade validate --document FILE`)")
        return StageResult("grounding", Verdict.FAILED, "neither a grounding document nor a grounding note in ENV_SPEC",
                           ["the environment is not tied to any source"],
                           ["fill ENV_SPEC['grounding'] with what it draws on"])
    settings = c.config.grounding
    evidence = measure(c, settings.min_facts)
    decorated = evidence.quoted and evidence.dependence == 0.0
    details = {"decorated": decorated, "score": evidence.score, "dependence": evidence.dependence, "facts": evidence.facts,
               "document_literals": evidence.literals, "literals_in_play": evidence.in_play,
               "quoted": evidence.quoted, "fact_examples": evidence.examples, "facts_probed_all": evidence.probed_all,
               "variety": evidence.variety,
               "grounded": evidence.score >= settings.min_score}
    summary = (f"grounding score {evidence.score:.2f}: the reference answers of {evidence.dependence:.0%} of the "
               f"seeds change when the document's facts in the code change ({evidence.literals} document literals, "
               f"{evidence.facts} of them decide answers on their own"
               + (f": {', '.join(repr(e) for e in evidence.examples[:4])}" if evidence.examples else "") + ")"
               + ("; the observations quote the document but no answer depends on it (quoted text counts for "
                  "nothing)" if decorated else ""))
    if settings.require_use and evidence.score < settings.min_score:
        return StageResult(
            "grounding", Verdict.FAILED, f"{summary}; at least {settings.min_score:.2f} is needed",
            ["the document is only a label or a theme: the answers do not come from its facts"],
            [f"draw each task from the document's facts (at least {settings.min_facts} of them deciding answers) "
             "rather than from random values"], details=details)
    return StageResult("grounding", Verdict.PASSED, summary, details=details)
