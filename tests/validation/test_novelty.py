"""Novelty by behaviour: a renamed copy of a known environment with a changed constant or two is a near-duplicate;
genuinely different environments (every pair of bundled seeds) are not."""

from __future__ import annotations

import ast
import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.memory.fingerprint import FINGERPRINT_MODEL, shape_tokens
from spade_core.validation import validate_source
from spade_core.validation.config import NoveltyThresholds
from spade_core.validation.novelty import why_duplicate
from spade_core.validation.pipeline import record_outcome
from spade_registry.records import Status, Trust

CORPUS = Path(__file__).parent / "corpus"
GOOD = (CORPUS / "good_secret_number.py").read_text()
KEEP = {"reset", "step", "privileged_hint", "reference_action", "__init__", "ENV_SPEC", "self", "rng", "options",
        "action"}


class _Renamer(ast.NodeTransformer):
    def __init__(self, names: set[str], salt: str) -> None:
        self.map = {n: f"{salt}{i}{n[::-1]}" for i, n in enumerate(sorted(names))}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.map.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.map.get(node.arg, node.arg)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
        self.generic_visit(node)
        node.attr = self.map.get(node.attr, node.attr)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.name = self.map.get(node.name, node.name)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        self.generic_visit(node)
        node.name = self.map.get(node.name, node.name)
        return node


def disguise(source: str, *, bump: int = 2, salt: str = "q") -> str:
    """What a designer copying a known environment does: every identifier the module binds renamed (difficulty knobs
    and the contract's names aside), comments and docstrings gone, ``bump`` integer constants changed by one, and a
    new name in ENV_SPEC."""
    tree = ast.parse(source)
    spec = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "ENV_SPEC")
    manifest = ast.literal_eval(spec.value)
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            bound.add(node.id if isinstance(node, ast.Name) else node.attr)
    body = [n for n in tree.body if n is not spec]
    module = ast.Module(body=body, type_ignores=[])
    _Renamer(bound - KEEP - imported - set(manifest.get("difficulty", {})), salt).visit(module)
    numbers = sorted((n for n in ast.walk(module) if isinstance(n, ast.Constant) and type(n.value) is int
                      and n.value >= 5), key=lambda n: (n.lineno, n.col_offset))
    for node in numbers[-bump:] if bump else []:  # the last ones in the file: messages, limits, reference details
        node.value += 1
    manifest["name"] = "Fresh" + manifest["name"]
    return f"ENV_SPEC = {manifest!r}\n\n" + ast.unparse(module) + "\n"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory):
    """A store holding every bundled seed, with their fingerprints computed once."""
    store = open_store(tmp_path_factory.mktemp("novelty") / "registry.sqlite3")
    sync_seed_environments(store)
    index = BehaviourIndex(store)
    assert index.refresh() == len(store.query(status=Status.ACCEPTED))
    return store, index


def test_every_pair_of_bundled_seeds_is_novel(seeded) -> None:
    store, index = seeded
    thresholds = NoveltyThresholds()
    seeds = store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED)
    assert len(seeds) >= 30
    vectors = {r.env_id: index._matrix[list(index._rids).index(r.rid)] for r in seeds}
    from spade_core.memory.fingerprint import Fingerprint

    flagged = []
    for a, b in itertools.combinations(sorted(vectors), 2):
        sim = Fingerprint.from_vector(vectors[a]).similarity(Fingerprint.from_vector(vectors[b]))
        if why_duplicate(sim, thresholds) is not None:
            flagged.append((a, b, sim.describe()))
    assert flagged == []


SEED_MODULES = [f"spade_domains.{m}" for m in (
    "math.seeds.arithmetic_chain", "math.seeds.euclid_remainders", "games.seeds.tic_tac_toe", "games.seeds.kuhn_poker",
    "games.seeds.wordle_like", "tool_use.seeds.triage_inbox", "tool_use.seeds.room_bookings", "code.seeds.algorithms",
    "code.seeds.regex_writer")]


@pytest.mark.parametrize("module", SEED_MODULES, ids=lambda m: m.rsplit(".", 1)[-1])
def test_a_disguised_bundled_seed_is_a_near_duplicate(seeded, module: str) -> None:
    store, index = seeded
    (original,) = [r for r in store.query(trust=Trust.BUNDLED) if r.module == module]
    copy = disguise(original.code)
    assert copy != original.code
    report = validate_source(copy, file="copy.py", store=store, memory=index)
    assert report.status == Status.DUPLICATE and report.failed_stage == "novelty", report.message
    assert f"near-duplicate of {original.env_id}" in report.message and "code shape" in report.message


def test_a_different_environment_in_the_same_domain_passes_novelty(seeded) -> None:
    store, index = seeded
    report = validate_source(GOOD, file="good.py", store=store, memory=index)
    novelty = next(s for s in report.stages if s.stage == "novelty")
    assert novelty.verdict == "passed", novelty.observed
    assert "nearest stored environment" in novelty.observed


def test_accepted_candidates_are_fingerprinted_once_and_matched_later(store_path: Path) -> None:
    store = open_store(store_path)
    index = BehaviourIndex(store)
    first = validate_source(GOOD, memory=index)
    assert first.fingerprint is not None and first.accepted
    record_outcome(store, GOOD, first)
    assert len(store.get_embeddings(FINGERPRINT_MODEL, with_vectors=False)) == 1  # validation's, no replay
    twin = disguise(GOOD, salt="z", bump=0)
    again = validate_source(twin, store=store, memory=index)
    assert again.status == Status.DUPLICATE and "spade/SecretNumber-v0" in again.message
    store.set_status("spade/SecretNumber-v0", Status.RETIRED)  # a retired environment is no longer compared
    assert validate_source(twin, store=store, memory=index).accepted


@settings(max_examples=8)
@given(salt=st.sampled_from(["a", "x", "renamed_", "k"]), bump=st.integers(0, 2))
def test_renaming_and_constants_never_change_the_code_shape(salt: str, bump: int) -> None:
    assert shape_tokens(disguise(GOOD, bump=bump, salt=salt)) == shape_tokens(GOOD)


def test_spade_validate_compares_with_the_registry(tmp_path: Path) -> None:
    store = tmp_path / "registry.sqlite3"
    sync_seed_environments(open_store(store))
    (chain,) = [r for r in open_store(store).query(trust=Trust.BUNDLED) if r.name == "ArithmeticChain"]
    candidate = tmp_path / "copy.py"
    candidate.write_text(disguise(chain.code))
    result = CliRunner().invoke(cli, ["--store", str(store), "validate", str(candidate), "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output.strip().splitlines()[-1])
    assert data["status"] == "duplicate" and data["stage"] == "novelty"
    assert "near-duplicate of spade/ArithmeticChain-v0" in data["message"]
