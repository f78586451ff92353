"""Behavioural fingerprints: what an environment *does*, as fixed-size vectors that survive renaming.

Two environments are the same idea when they behave the same, whatever their identifiers, constants or comments.
A fingerprint has three unit-length parts, each a signed feature hash (like :class:`HashingEmbedder`):

- ``text``: word bigrams and trigrams of what the environment says while fixed probe policies play it on fixed
  seeds: observations, the hint at reset and the reference action's form. Digits are masked (``#``), so a changed
  constant or range does not change the text; channels (observation, hint, action) are kept apart.
- ``dynamics``: the wording-free shape of those episodes: per probe and turn, the sign of the reward, whether it
  ended, succeeded or was a valid action, and how long each episode lasted.
- ``shape``: 4-grams of the module's syntax tree in source order, with every identifier the module binds (classes,
  functions, arguments, variables, attributes) replaced by one token and every constant by its type; the
  ``ENV_SPEC`` manifest and docstrings are left out. Renaming and changing constants leave it unchanged.

The probe protocol (:data:`PROBE_SEEDS`, :data:`PROBE_ACTIONS`, :data:`PROBE_MAX_STEPS`) is fixed, so a candidate
and a stored environment are fingerprinted alike; bump :data:`FINGERPRINT_VERSION` whenever any of it changes
(stored fingerprints are keyed by it).
"""

from __future__ import annotations

import ast
import hashlib
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from spade_core import linear_re
from spade_core.contract.env import SpadeEnv
from spade_core.linear_re import DIGIT, SPACE
from spade_registry.syntax import parse_source

FINGERPRINT_VERSION = 1
FINGERPRINT_MODEL = f"behaviour-fingerprint-v{FINGERPRINT_VERSION}"
"""The key stored fingerprints live under in the store's embeddings table."""

TEXT_DIM = 512
DYNAMICS_DIM = 128
SHAPE_DIM = 512
DIM = TEXT_DIM + DYNAMICS_DIM + SHAPE_DIM

PROBE_SEEDS: tuple[int, ...] = (0, 1, 2, 3)
PROBE_ACTIONS: tuple[str, ...] = ("0", "yes")
"""Constant actions probed besides the reference solver (a number and a word: the two usual answer forms)."""
PROBE_MAX_STEPS = 12
"""Turns recorded per probe episode (an episode still running then is left; the next reset starts afresh)."""
MAX_TOKENS_PER_TEXT = 400
SHAPE_GRAM = 4
REFERENCE_PROBE = "reference"

_TOKEN = linear_re.compile(rf"[a-z]+|#|[^{SPACE}a-z#]")
_DIGITS = linear_re.compile(rf"{DIGIT}+(?:[.,]{DIGIT}+)*")
MAX_TEXT_CHARS = 16 * MAX_TOKENS_PER_TEXT
"""Only this much of a text is tokenised (its first tokens are all that count)."""


@dataclass(frozen=True)
class Similarity:
    """Cosine similarity of two fingerprints, part by part."""

    text: float
    dynamics: float
    shape: float

    def describe(self) -> str:
        return f"observed text {self.text:.2f}, dynamics {self.dynamics:.2f}, code shape {self.shape:.2f}"


@dataclass(frozen=True)
class Fingerprint:
    """The three unit-length parts (see the module docstring); an all-zero part means "nothing observed"."""

    text: np.ndarray
    dynamics: np.ndarray
    shape: np.ndarray

    def vector(self) -> np.ndarray:
        """All parts in one float32 row (what the store keeps)."""
        return np.concatenate([self.text, self.dynamics, self.shape]).astype(np.float32)

    @classmethod
    def from_vector(cls, vector: np.ndarray) -> Fingerprint:
        row = np.asarray(vector, dtype=np.float32).reshape(-1)
        if row.size != DIM:
            raise ValueError(f"a fingerprint has {DIM} values, got {row.size}")
        return cls(row[:TEXT_DIM], row[TEXT_DIM:TEXT_DIM + DYNAMICS_DIM], row[TEXT_DIM + DYNAMICS_DIM:])

    @property
    def empty(self) -> bool:
        return not (self.text.any() or self.dynamics.any() or self.shape.any())

    def similarity(self, other: Fingerprint) -> Similarity:
        return Similarity(float(self.text @ other.text), float(self.dynamics @ other.dynamics),
                          float(self.shape @ other.shape))


def similarities(query: Fingerprint, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Part-wise cosine similarities of ``query`` with every row of an ``(n, DIM)`` matrix of fingerprints."""
    rows = np.asarray(matrix, dtype=np.float32).reshape(-1, DIM)
    text = rows[:, :TEXT_DIM] @ query.text
    dynamics = rows[:, TEXT_DIM:TEXT_DIM + DYNAMICS_DIM] @ query.dynamics
    shape = rows[:, TEXT_DIM + DYNAMICS_DIM:] @ query.shape
    return text, dynamics, shape


# -- feature hashing ------------------------------------------------------------------------------------------
def hash_features(features: Iterable[str], dim: int) -> np.ndarray:
    """Signed feature hashing with sublinear counts (``1 + log(count)``), L2-normalised."""
    out = np.zeros(dim, dtype=np.float64)
    for feature, count in Counter(features).items():
        digest = hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        sign = 1.0 if digest[4] & 1 else -1.0
        out[int.from_bytes(digest[:4], "little") % dim] += sign * (1.0 + math.log(count))
    norm = np.linalg.norm(out)
    return (out / norm if norm > 0 else out).astype(np.float32)


def text_tokens(text: str) -> list[str]:
    """Lower-case words, ``#`` for every number, and single punctuation marks (a board's ``|`` counts)."""
    return _TOKEN.findall(_DIGITS.sub("#", text[:MAX_TEXT_CHARS].lower()))[:MAX_TOKENS_PER_TEXT]


def text_features(channel: str, text: str) -> list[str]:
    tokens = text_tokens(text)
    grams = [" ".join(tokens[i:i + 2]) for i in range(len(tokens) - 1)]
    grams += [" ".join(tokens[i:i + 3]) for i in range(len(tokens) - 2)]
    if len(tokens) == 1:
        grams.append(tokens[0])
    return [f"{channel}:{g}" for g in grams]


# -- probing --------------------------------------------------------------------------------------------------
Chooser = Callable[[SpadeEnv], str]


def _probes() -> list[tuple[str, Chooser]]:
    probes: list[tuple[str, Chooser]] = [(REFERENCE_PROBE, lambda env: env.reference_action())]
    probes += [(f"constant {a!r}", (lambda env, a=a: a)) for a in PROBE_ACTIONS]
    return probes


@dataclass
class ProbeRecord:
    """What the probes saw: features for the text and dynamics parts, and how many episodes ran."""

    text: list[str]
    dynamics: list[str]
    episodes: int = 0
    errors: int = 0


def probe(make_env: Callable[[], SpadeEnv]) -> ProbeRecord:
    """Play every probe policy on every probe seed (one instance, reset per episode); never raises for env code
    that fails: a failure is itself a feature of what the environment does."""
    record = ProbeRecord([], [])
    env = make_env()
    try:
        for name, choose in _probes():
            for seed in PROBE_SEEDS:
                try:
                    _probe_episode(env, name, choose, seed, record)
                except Exception as exc:  # env code may fail anywhere; that is behaviour too
                    record.errors += 1
                    record.dynamics.append(f"{name}:error:{type(exc).__name__}")
                    env.close()
                    env = make_env()
                record.episodes += 1
    finally:
        env.close()
    return record


def _probe_episode(env: SpadeEnv, name: str, choose: Chooser, seed: int, record: ProbeRecord) -> None:
    obs, info = env.reset(seed=seed)
    record.text += text_features("obs", obs)
    if name == REFERENCE_PROBE:
        record.text += text_features("hint", env.privileged_hint())
    steps = 0
    ended = "open"
    for turn in range(PROBE_MAX_STEPS):
        action = choose(env)
        if name == REFERENCE_PROBE and turn < 2:
            record.text += text_features("action", action)
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        record.text += text_features("obs", obs)
        sign = "+" if reward > 0 else "-" if reward < 0 else "0"
        record.dynamics.append(
            f"{name}:{turn}:r{sign}:t{int(terminated)}{int(truncated)}:s{int(bool(info.get('success')))}"
            f":v{int(info.get('action_is_valid', True) is not False)}:p{info.get('player_id', 0)}")
        if info.get("sandbox_error") is not None:
            ended = "error"
            break
        if terminated or truncated:
            ended = "success" if info.get("success") else "terminated" if terminated else "truncated"
            break
    record.dynamics.append(f"{name}:length:{steps}:{ended}")
    record.dynamics.append(f"{name}:end:{ended}")


# -- code shape -----------------------------------------------------------------------------------------------
def shape_tokens(source: str) -> list[str]:
    """The module's syntax tree in source order, identifiers the module binds and constants normalised away."""
    try:
        tree = parse_source(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    body = [n for n in tree.body if not _is_env_spec(n) and not _is_docstring(n)]
    bound = _bound_names(tree)
    tokens: list[str] = []
    for node in body:
        tokens.extend(_walk(node, bound))
    return tokens


def shape_features(source: str) -> list[str]:
    tokens = shape_tokens(source)
    if len(tokens) < SHAPE_GRAM:
        return [" ".join(tokens)] if tokens else []
    return [" ".join(tokens[i:i + SHAPE_GRAM]) for i in range(len(tokens) - SHAPE_GRAM + 1)]


def _is_env_spec(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in node.targets)


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the module itself introduces (so renaming it changes nothing); builtins and the attributes of
    imported or standard objects (``rng.randint``, ``.strip``) stay as they are."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.attr)
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
    bound.discard("self")
    return bound


def _walk(node: ast.AST, bound: set[str]) -> Iterator[str]:
    if isinstance(node, (ast.expr_context, ast.Load)):
        return
    if _is_docstring(node):
        return
    if isinstance(node, ast.Name):
        yield "ID" if node.id in bound else f"name:{node.id}"
        return
    if isinstance(node, ast.Attribute):
        yield "Attr"
        yield from _walk(node.value, bound)
        yield "ID" if node.attr in bound else f"attr:{node.attr}"
        return
    if isinstance(node, ast.Constant):
        value = node.value
        yield f"const:{value}" if value is None or isinstance(value, bool) else f"const:{type(value).__name__}"
        return
    yield type(node).__name__
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, bound)


# -- the whole fingerprint ------------------------------------------------------------------------------------
def fingerprint(source: str, make_env: Callable[[], SpadeEnv] | None) -> tuple[Fingerprint, ProbeRecord]:
    """The fingerprint of ``source`` (the shape part) played through ``make_env`` (the text and dynamics parts;
    ``None`` leaves them empty)."""
    record = probe(make_env) if make_env is not None else ProbeRecord([], [])
    return Fingerprint(hash_features(record.text, TEXT_DIM), hash_features(record.dynamics, DYNAMICS_DIM),
                       hash_features(shape_features(source), SHAPE_DIM)), record


def describe(record: ProbeRecord) -> dict[str, Any]:
    return {"episodes": record.episodes, "errors": record.errors, "text_features": len(set(record.text)),
            "dynamics_features": len(set(record.dynamics))}
