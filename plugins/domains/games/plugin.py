"""The games domain plugin: designer guidance, move helpers, topic weights and seed games."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment

SEED_MODULES = (
    "tic_tac_toe",
    "kuhn_poker",
    "connect_four",
    "wordle_like",
    "mastermind",
    "sliding_puzzle",
    "nim_vs_bot",
    "tower_of_hanoi",
)
WORKED_EXAMPLES = ("spade_domains.games.seeds.tic_tac_toe", "spade_domains.games.seeds.mastermind")
VERIFY_MODULE = "spade_domains.games.verify"
VERIFY_EXPORTS = ("clean_move", "move_tokens", "move_integers", "safe_echo", "zero_sum_rewards")

GUIDANCE = """\
You are designing a GAME environment for reinforcement learning, grounded in the document below.

WHAT TO BUILD
Either a single-player puzzle with feedback every turn (deduction like Wordle or Mastermind, planning like a
sliding puzzle or Tower of Hanoi, a game against a scripted opponent like Nim) or a two-player zero-sum game
whose two seats are BOTH played by the agent (self-play: tic-tac-toe, Connect Four, Kuhn poker as a match).
The rules come from the document; the agent must be able to learn them from the first observation.

THE CONTRACT
One module: an ENV_SPEC dict (name, domain="games", description, reward_range, max_turns, players (1 or 2),
difficulty={knob: {min, max, default, description}}, tools=[], grounding=<the game and its known theory>, tags)
and exactly ONE plain class (no base class, no gymnasium import) with
  __init__(**knobs)                  the difficulty knobs, as keyword arguments with defaults
  reset(rng, options) -> (obs, info) draw the position/secret/deal from rng (never import random)
  step(action) -> (obs, reward, terminated, truncated, info)
  privileged_hint() -> str           help that does not give the move or the solution away
  reference_action() -> str          the next move of a scripted solver (it may read internal state)
Import only the modules the contract lists and the helpers below. No print, open, eval, exec, getattr/setattr,
str.format (use f-strings), dunder names or attributes, or global statements (a single leading underscore on
your own helper methods is fine).

MOVES: parse every move with the helpers of spade_domains.games.verify (exact signatures in the API REFERENCE at
the end): clean_move(text) for a normalised move string, move_tokens(text) / move_integers(text) for its words
and numbers, safe_echo(text) to quote the agent in feedback, zero_sum_rewards(winner, players) for final rewards.
Check every move against the rules. A malformed move gets info["format_error"] (what form is expected); a
well-formed but illegal move gets action_is_valid=False and an observation that says why. Never raise.

TWO-PLAYER GAMES
info["player_id"] is the seat to act after reset and after every non-final step; the observation is written
for that seat ("You are player 1 (O) ...", its private cards only); info["legal_moves"] lists the moves that
seat may play now (strings, as the agent would write them). When the game ends set info["rewards"]
(one reward per seat, zero-sum), info["winner"] (seat or None) and info["success"] = the last mover won; the
step reward is the mover's. Three invalid moves in a row by one seat forfeit the game, so a policy that only
emits garbage loses. Make chance-heavy games (poker) a multi-hand match so skill decides the winner.

A GOOD PRIVILEGED HINT
A rule, a threat or a strategic fact ("your opponent can complete the top row", "the nim-sum should be zero
after your move", "the word has two distinct vowels") - never the move to play or the solution, and no text
that would itself be a legal winning move.

TRIVIAL OR IMPOSSIBLE (both are rejected)
Trivial: a random or constant move wins, the solution is visible, or the budget allows blind enumeration.
Impossible: the feedback cannot identify the answer within the turns, or the opponent wins from the start.
A difficulty knob must really change difficulty: search space, scramble depth, guesses allowed, board size.
"""


TOPICS = {
    # the embedded wiki corpus's topics: games and puzzles are built from everyday, historical and cultural material
    "Everyday life": 3.0, "History": 2.0, "Geography": 2.0, "Arts": 2.0, "People": 1.0,
    "Society and social sciences": 1.0, "*": 0.5,
    # topic names other corpora use
    "deduction": 1.0, "planning puzzles": 1.0, "board games": 1.0, "card games": 0.5, "combinatorial games": 1.0,
}


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="games",
            description="Puzzles and two-player zero-sum self-play games with rule-checked moves.",
            designer_guidance=GUIDANCE,
            worked_examples=WORKED_EXAMPLES,
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="label",  # a number in a move is a cell, a pile or a code peg, not a signed quantity
            topics=TOPICS,
            selfplay_default=True,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"spade_domains.games.seeds.{name}") for name in SEED_MODULES]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in VERIFY_EXPORTS}}
