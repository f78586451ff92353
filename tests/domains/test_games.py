"""The games domain: move helpers, action parsing, the plugin's hooks, every seed game and `spade play`."""

from __future__ import annotations

import ast
import builtins
import json
import random
import re
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from RestrictedPython import compile_restricted

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_core.designer.domain_material import domain_guidance
from spade_core.plugins.contributions import SeedEnvironment, load_object
from spade_domains.games import plugin
from spade_domains.games.verify import clean_move, move_integers, move_tokens, safe_echo, zero_sum_rewards
from spade_registry.manifest import EnvManifest

SEEDS = [f"spade_domains.games.seeds.{name}" for name in plugin.SEED_MODULES]
TWO_PLAYER = ["spade_domains.games.seeds.tic_tac_toe", "spade_domains.games.seeds.kuhn_poker",
              "spade_domains.games.seeds.connect_four"]
SINGLE_PLAYER = [m for m in SEEDS if m not in TWO_PLAYER]
STDLIB_STAND_INS = {"math", "re", "json", "string", "itertools", "collections", "heapq", "bisect", "fractions",
                    "statistics", "copy", "functools"}
CURATED_BUILTINS = {"abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "isinstance", "len",
                    "list", "max", "min", "pow", "range", "reversed", "round", "set", "sorted", "str", "sum",
                    "tuple", "zip"}
FORBIDDEN_CALLS = {"print", "open", "eval", "exec", "getattr", "setattr", "delattr", "type", "compile", "input",
                   "globals", "locals", "vars", "__import__"}
MALFORMED = ["", " ", "\n", "{not json", '{"name": "move", "arguments": {"cell": "five"}}', "\ud800", "a\ud800b",
             "\x00\x07", "move:", "-1", "99999999999999999999", "1 2 3 4 5 6 7 8 9", "<tool_call>{}</tool_call>",
             "x" * 9000]
PARSE_SETTINGS = settings(derandomize=True, deadline=None, max_examples=50)


def make_env(module: str, **knobs: Any) -> SpadeEnv:
    raw, cls = load_trusted_module(module)
    manifest = EnvManifest.from_dict(raw, source=module)
    return SpadeEnv(manifest, lambda k: LocalInnerEnv(cls, k), knobs=knobs)


def reference(env: SpadeEnv, obs: str) -> str:
    return env.reference_action()


def random_text(env: SpadeEnv, obs: str) -> str:
    return env.action_space.sample()


def play(env: SpadeEnv, seed: int, policies: list) -> tuple[dict, list[str], list[str]]:
    """Play one episode; ``policies[seat]`` picks the move. Returns the final info, hints and reference moves."""
    obs, info = env.reset(seed=seed)
    hints, refs = [], []
    while True:
        seat = info.get("player_id", 0)
        if env.manifest.players > 1:
            assert f"You are player {seat}" in obs
        hints.append(env.privileged_hint())
        refs.append(env.reference_action())
        obs, reward, terminated, truncated, info = env.step(policies[seat](env, obs))
        if terminated or truncated:
            return info, hints, refs


def squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def leaks(hint: str, move: str) -> bool:
    """The hint gives a move away: the move (3+ characters, normalised) is a substring of the normalised hint."""
    target = squash(move)
    return len(target) >= 3 and target in squash(hint)


def legal_random(seed: int):
    """A random policy that reads the legal moves off the observation (so it never forfeits)."""
    rng = random.Random(seed)

    def policy(env: SpadeEnv, obs: str) -> str:
        if "Legal moves:" in obs:
            return rng.choice(re.search(r"Legal moves: ([a-z, ]+)\.", obs).group(1).split(", "))
        if "free cells" in obs:
            return rng.choice(re.findall(r"(?<![\d(])([1-9])(?![\d)])", obs.split("Board")[1]))
        if "discs fall" in obs:
            rows = [line.split() for line in obs.splitlines() if set(line.replace(" ", "")) <= set(".XO")
                    and line.strip()]
            return str(rng.choice([c + 1 for c, cell in enumerate(rows[0]) if cell == "."]))
        raise AssertionError(f"cannot read legal moves from {obs!r}")

    return policy


# -- helpers --------------------------------------------------------------------------------------------------
def test_clean_move() -> None:
    assert clean_move('Guess: "CRANE".') == "crane"
    assert clean_move("I think...\nMy move: 5") == "5"
    assert clean_move("  `Take 3   from heap 2`  ") == "take 3 from heap 2"
    assert clean_move("") is None and clean_move("   \n ") is None
    assert clean_move("x" * 300) is None
    assert clean_move("a\ud800") is None and clean_move("\x00") is None
    assert clean_move(None) is None  # type: ignore[arg-type]


def test_move_tokens_and_integers() -> None:
    assert move_tokens("Take 3 from heap 2") == ["take", "3", "from", "heap", "2"]
    assert move_integers("column 4") == [4]
    assert move_integers("9" * 40) == []  # huge numbers are never built
    assert move_integers("x" * 10_000) == []


def test_safe_echo_and_rewards() -> None:
    assert safe_echo("a\ud800b") == "a?b"
    assert len(safe_echo("y" * 100_000)) <= 43
    assert zero_sum_rewards(0) == [1.0, -1.0] and zero_sum_rewards(1) == [-1.0, 1.0]
    assert zero_sum_rewards(None) == [0.0, 0.0]
    assert sum(zero_sum_rewards(2, players=3)) == pytest.approx(0.0)


@PARSE_SETTINGS
@given(st.text(max_size=400))
def test_move_helpers_never_raise(text: str) -> None:
    move = clean_move(text)
    assert move is None or (move == move.lower() and len(move) <= 200)
    assert isinstance(move_tokens(text), list) and isinstance(move_integers(text), list)
    assert isinstance(safe_echo(text), str)


# -- plugin hooks ---------------------------------------------------------------------------------------------
def test_plugin_hooks() -> None:
    (domain,) = plugin.spade_domains()
    assert domain.name == "games" and domain.answer_kind == "label" and domain.selfplay_default
    assert len(domain.worked_examples) == 2 and set(domain.worked_examples) <= set(SEEDS)
    for needle in ("player_id", "rewards", "HINT:", "format_error", "legal_moves", "zero_sum_rewards(winner"):
        assert needle in domain_guidance(domain)
    seeds = plugin.spade_seed_environments()
    assert [s.module for s in seeds] == SEEDS and len(SEEDS) >= 8 and len(TWO_PLAYER) >= 2
    assert all(s.source() for s in seeds)
    exposed = plugin.spade_sandbox_modules()["spade_domains.games.verify"]
    assert all(callable(load_object(ref)) for ref in exposed.values())


# -- every seed -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("module", SEEDS)
def test_seed_is_valid_sandboxed_code(module: str) -> None:
    source = SeedEnvironment(module).source()
    compile_restricted(source, module, "exec")  # raises SyntaxError on anything RestrictedPython refuses
    tree = ast.parse(source)
    exposed = {mod: set(names) for mod, names in plugin.spade_sandbox_modules().items()}
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert len(classes) == 1 and not classes[0].bases
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(a.name in STDLIB_STAND_INS for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.module in exposed:
                assert {a.name for a in node.names} <= exposed[node.module]
            else:
                assert node.module in STDLIB_STAND_INS, node.module
        elif isinstance(node, ast.Global):
            pytest.fail("global statement")
        elif isinstance(node, ast.Attribute):
            assert node.attr != "format"
        elif isinstance(node, ast.Name) and node.id in dir(builtins):
            assert node.id not in FORBIDDEN_CALLS, node.id
            if node.id[0].islower():
                assert node.id in CURATED_BUILTINS, node.id


@pytest.mark.parametrize("module", SEEDS)
def test_seed_passes_the_validation_pipeline_in_the_sandbox(module: str) -> None:
    """Seeds are valid designer code: the full validation pipeline (sandboxed) accepts each one."""
    from spade_core.validation import validate_source

    report = validate_source(SeedEnvironment(module).source(), file=f"{module.rsplit('.', 1)[-1]}.py")
    assert report.status == "accepted", report.repair_message()


@pytest.mark.parametrize("module", SEEDS)
def test_seed_passes_check_env(module: str) -> None:
    env = make_env(module)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*spec.*")
        check_env(env)
    assert env.manifest.domain == "games" and env.manifest.grounding and env.manifest.max_turns >= 3
    assert env.manifest.difficulty


@pytest.mark.parametrize("module", SINGLE_PLAYER)
def test_single_player_quality_bar(module: str) -> None:
    env = make_env(module)
    solved = 0
    for seed in range(20):
        info, hints, refs = play(env, seed, [reference])
        solved += info["success"]
        for hint in hints:
            assert not leaks(hint, refs[-1]) and squash(refs[-1]) not in squash(hint), (module, hint, refs[-1])
            for move in refs:
                assert not leaks(hint, move), (module, hint, move)
    assert solved >= 18
    env.action_space.seed(0)
    assert sum(play(env, s, [random_text])[0]["success"] for s in range(20)) < 2
    assert not any(play(env, s, [lambda e, o: "0"])[0]["success"] for s in range(20))
    assert not any(play(env, s, [lambda e, o: e.privileged_hint()])[0]["success"] for s in range(20))


@pytest.mark.parametrize("module", TWO_PLAYER)
def test_two_player_reference_beats_random_from_both_seats(module: str) -> None:
    env = make_env(module)
    env.action_space.seed(1)
    for seat in (0, 1):
        wins = losses = 0
        for seed in range(20):
            policies = [random_text, random_text]
            policies[seat] = reference
            info, hints, refs = play(env, seed, policies)
            wins += info["rewards"][seat] > 0
            losses += info["rewards"][1 - seat] > 0
            assert sum(info["rewards"]) == pytest.approx(0.0)
            for hint in hints:
                assert not any(leaks(hint, move) for move in refs), (module, hint)
        assert wins >= 18 and losses < 2, (module, seat, wins, losses)


@pytest.mark.parametrize("module", TWO_PLAYER)
def test_two_player_reference_beats_random_legal_play(module: str) -> None:
    env = make_env(module)
    for seat in (0, 1):
        wins = losses = 0
        for seed in range(10):
            policies = [legal_random(seed), legal_random(seed)]
            policies[seat] = reference
            info, _, _ = play(env, seed, policies)
            assert "rewards" in info and info.get("action_is_valid", True)
            wins += info["rewards"][seat] > 0
            losses += info["rewards"][1 - seat] > 0
        assert wins >= 8 and losses <= 1, (module, seat, wins, losses)


@pytest.mark.parametrize("module", TWO_PLAYER)
def test_two_player_protocol(module: str) -> None:
    env = make_env(module)
    obs, info = env.reset(seed=4)
    seat = info["player_id"]
    obs, reward, terminated, truncated, info = env.step(env.reference_action())
    assert info["player_id"] == 1 - seat and f"You are player {1 - seat}" in obs
    # three invalid moves in a row forfeit; each one keeps the seat and explains the problem
    for k in range(3):
        obs, reward, terminated, truncated, info = env.step("not a move")
        assert info["format_error"] and info["action_is_valid"] is False
        if k < 2:
            assert not terminated and info["player_id"] == 1 - seat and "invalid" in obs.lower()
    assert terminated and info["winner"] == seat and info["rewards"][seat] == 1.0 and not info["success"]
    # self-play: both seats reference, the game ends with per-seat rewards
    info, _, _ = play(env, 0, [reference, reference])
    assert len(info["rewards"]) == 2 and sum(info["rewards"]) == pytest.approx(0.0)


@pytest.mark.parametrize("module", SEEDS)
def test_seed_knobs_change_the_game(module: str) -> None:
    raw, _ = load_trusted_module(module)
    for name, spec in raw["difficulty"].items():
        easy, hard = make_env(module, **{name: spec["min"]}), make_env(module, **{name: spec["max"]})
        differs = any(
            easy.reset(seed=s)[0] != hard.reset(seed=s)[0] or easy.reference_action() != hard.reference_action()
            for s in range(6)
        )
        assert differs, f"{module}: knob {name} changes nothing"


@pytest.mark.parametrize("module", SINGLE_PLAYER)
def test_single_player_knob_extremes_stay_solvable(module: str) -> None:
    raw, _ = load_trusted_module(module)
    for name, spec in raw["difficulty"].items():
        for value in (spec["min"], spec["max"]):
            env = make_env(module, **{name: value})
            solved = sum(play(env, s, [reference])[0]["success"] for s in range(5))
            assert solved >= 4, (module, name, value)


@PARSE_SETTINGS
@given(st.sampled_from(SEEDS), st.one_of(st.text(max_size=120), st.sampled_from(MALFORMED)), st.integers(0, 40))
def test_seed_malformed_moves_never_raise(module: str, action: str, seed: int) -> None:
    env = make_env(module)
    env.reset(seed=seed)
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs, str) and obs
    if clean_move(action) is None:
        assert info["format_error"] and info["action_is_valid"] is False
        assert not info["success"]
    if not (terminated or truncated):
        assert isinstance(env.step(env.reference_action())[0], str)


@pytest.mark.parametrize("module", SEEDS)
def test_seed_inner_class_survives_huge_and_odd_moves(module: str) -> None:
    _, cls = load_trusted_module(module)
    handle = LocalInnerEnv(cls, make_env(module).knobs)
    handle.reset(2, {})
    for action in ("x" * 1_000_000, "5" * 100_000, "\ud800", "1\ud8002", "move: \x00"):
        start = time.monotonic()
        obs, reward, terminated, truncated, info = handle.step(action)
        assert isinstance(obs, str) and len(obs) < 4000 and info.get("format_error")
        assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("module", SEEDS)
def test_seed_is_deterministic(module: str) -> None:
    def trace(env: SpadeEnv) -> list[Any]:
        out: list[Any] = [env.reset(seed=7)[0]]
        for _ in range(6):
            for action in ("garbage", env.reference_action()):
                step = env.step(action)
                out.append(step[:4])
                if step[2] or step[3]:
                    return out
        return out

    assert trace(make_env(module)) == trace(make_env(module))


# -- particular games ---------------------------------------------------------------------------------------
def test_wordle_feedback_handles_repeated_letters() -> None:
    from spade_domains.games.seeds.wordle_like import feedback

    assert feedback("speed", "abide") == "..Y.Y"  # only one E of the guess is marked: the secret has one
    assert feedback("eerie", "there") == "Y.Y.G"
    assert feedback("crane", "crane") == "GGGGG"
    assert feedback("allee", "eagle") == "YY.YG"


def test_mastermind_score() -> None:
    from spade_domains.games.seeds.mastermind import score

    assert score("1122", "1122") == (4, 0)
    assert score("1122", "2211") == (0, 4)
    assert score("1234", "1325") == (1, 2)


def test_nim_move_forms_and_bot_reply() -> None:
    env = make_env("spade_domains.games.seeds.nim_vs_bot")
    obs, _ = env.reset(seed=3)
    for bad in ("take 99 from heap 1", "heap 9 take 1", "take 0 from heap 1"):
        obs, reward, terminated, truncated, info = env.step(bad)
        assert info["action_is_valid"] is False and info["format_error"] is None and not terminated
    obs, reward, terminated, truncated, info = env.step(env.reference_action())
    assert "opponent took" in obs or terminated


def test_hanoi_refuses_large_on_small() -> None:
    env = make_env("spade_domains.games.seeds.tower_of_hanoi", disks=3)
    env.reset(seed=0)
    inner = env._ensure_handle()._env  # white-box: put disk 1 on A and disk 2 on B
    inner.pos = [0, 0, 1, 1]
    obs, reward, terminated, truncated, info = env.step("move B A")
    assert "cannot go on" in obs and info["action_is_valid"] is False


def test_sliding_puzzle_only_adjacent_tiles_move() -> None:
    env = make_env("spade_domains.games.seeds.sliding_puzzle")
    obs, _ = env.reset(seed=1)
    movable = re.search(r"slide into the gap: ([\d, ]+)\.", obs).group(1).split(", ")
    stuck = next(t for t in "12345678" if t not in movable)
    obs, reward, terminated, truncated, info = env.step(stuck)
    assert "cannot slide" in obs and info["action_is_valid"] is False


def test_connect_four_full_column_is_illegal() -> None:
    env = make_env("spade_domains.games.seeds.connect_four", columns=5)
    env.reset(seed=0)
    for _ in range(4):  # fill column 1 (4 rows), alternating seats, no four-in-a-row possible
        env.step("1")
    obs, reward, terminated, truncated, info = env.step("1")
    assert "full" in obs and info["action_is_valid"] is False and not terminated


def test_kuhn_poker_chip_accounting() -> None:
    env = make_env("spade_domains.games.seeds.kuhn_poker", hands=20)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("bet")
    obs, reward, terminated, truncated, info = env.step("fold")
    assert info["chips"] == [1, -1] and "folded" in obs and info["player_id"] == 1  # hand 2: seat 1 acts first
    obs, reward, terminated, truncated, info = env.step("call")  # nothing to call yet
    assert info["action_is_valid"] is False and info["format_error"] is None


# -- `spade play` with two scripted players on stdin -----------------------------------------------------------
def _play_cli(store: Path, env_id: str, moves: list[str], *extra: str) -> dict:
    from spade_core.cli.main import cli

    result = CliRunner().invoke(cli, ["--store", str(store), "play", env_id, "--seed", "0", *extra],
                                input="".join(f"{m}\n" for m in moves))
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


def test_spade_play_two_scripted_players(store_path: Path) -> None:
    summary = _play_cli(store_path, "TicTacToe-v0", ["1", "4", "2", "5", "3"], "--knob", "opening_moves=0")
    assert summary["rewards"] == [1.0, -1.0] and summary["terminated"] and summary["turns"] == 5
    summary = _play_cli(store_path, "ConnectFourSmall-v0", ["3", "4"] * 3 + ["3"], "--knob", "opening_moves=0")
    assert summary["rewards"] == [1.0, -1.0]
    summary = _play_cli(store_path, "KuhnPokerMatch-v0", ["fold"] * 40, "--knob", "hands=20")
    assert summary["terminated"] and summary["rewards"] in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
