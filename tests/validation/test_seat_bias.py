"""Two-player games: the optional ``legal_moves`` info key, the random legal player that uses it, and how a game's
winner is read for the seat-bias check."""

from __future__ import annotations

import gymnasium as gym
import pytest

import spade_core  # noqa: F401 - registers the bundled environments
from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.errors import ContractError
from spade_core.validation.adversaries import random_legal
from spade_core.validation.episodes import play
from spade_core.validation.replay import seat_winner


@pytest.mark.parametrize("env_id", ["spade/TicTacToe-v0", "spade/ConnectFourSmall-v0", "spade/KuhnPokerMatch-v0"])
def test_bundled_games_list_their_legal_moves_and_random_legal_play_never_forfeits(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info[LEGAL_MOVES_KEY] and all(isinstance(m, str) for m in info[LEGAL_MOVES_KEY])
        episode = play(env, seed, random_legal(seed))
        assert episode.error is None and episode.finished
        assert all(i.get("action_is_valid", True) for i in episode.infos), "a legal move was refused"


def test_legal_moves_must_be_a_list_of_strings() -> None:
    env = gym.make("spade/TicTacToe-v0").unwrapped
    env.reset(seed=0)
    with pytest.raises(ContractError, match="legal_moves"):
        env._check_info({LEGAL_MOVES_KEY: [1, 2]}, "step")
    with pytest.raises(ContractError, match="legal_moves"):
        env._check_info({LEGAL_MOVES_KEY: "1 2 3"}, "step")
    assert env._check_info({LEGAL_MOVES_KEY: ["1", "2"]}, "step")[LEGAL_MOVES_KEY] == ["1", "2"]


def test_random_legal_player_without_the_key_reads_the_offered_moves() -> None:
    class Stub:
        turn = 0

    policy = random_legal(0)
    moves = {policy(Stub(), "Pot 2. Legal moves: check, bet.", {}) for _ in range(20)}  # type: ignore[arg-type]
    assert moves == {"check", "bet"}


def test_winner_is_read_from_winner_or_rewards() -> None:
    assert seat_winner({"winner": 1}, 2) == 1
    assert seat_winner({"rewards": [1.0, -1.0]}, 2) == 0
    assert seat_winner({"rewards": [0.0, 0.0]}, 2) is None
    assert seat_winner({"winner": True, "rewards": [-1, 1]}, 2) == 1
    assert seat_winner({}, 2) is None
