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
WHAT TO BUILD: a single-player puzzle with feedback every turn (deduction like Mastermind, planning like Tower of
Hanoi, a scripted opponent like Nim) or a two-player zero-sum game whose two seats are BOTH played by the agent
(Connect Four, Kuhn poker). The rules or material come from the document; the agent must
be able to learn the rules from the first observation.

MOVES: parse every move with spade_domains.games.verify (see the API REFERENCE; safe_echo quotes the agent,
zero_sum_rewards(winner, players) gives final rewards). A malformed move
gets info["format_error"] (the expected form); a well-formed illegal move gets info["action_is_valid"] = False and
an observation that says why.

TWO-PLAYER GAMES: info["player_id"] is the seat to act after reset and after every non-final step; the observation
is written for that seat (its private cards only); info["legal_moves"] lists that seat's moves as the agent would
write them. At the end set info["rewards"] (one per seat, zero-sum), info["winner"] (seat or None) and
info["success"] = the last mover won; the step reward is the mover's. Three invalid moves in a row by one seat
forfeit. Make chance-heavy games a multi-hand match so skill decides the winner.

HINT: a rule, a threat or a strategic fact ("the nim-sum should be zero after your move"), never the move or
the solution. A difficulty knob changes the search space, scramble depth, guesses allowed or board size.
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
