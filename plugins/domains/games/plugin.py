"""The games domain plugin: move parsing, designer guidance, sandbox helpers and seed games."""

from __future__ import annotations

import functools

from spade_core.designer.api_reference import api_reference
from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, ParsedAction, SeedEnvironment
from spade_domains.games.verify import MAX_MOVE_CHARS, clean_move

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
WHAT TO BUILD: a single-player puzzle with feedback every turn (deduction like Wordle or Mastermind, planning like
a sliding puzzle or Tower of Hanoi, a game against a scripted opponent like Nim) or a two-player zero-sum game
whose two seats are BOTH played by the agent (tic-tac-toe, Connect Four, Kuhn poker as a match). The rules or
material come from the document; the agent must be able to learn the rules from the first observation.

MOVES: parse every move with spade_domains.games.verify (see the API REFERENCE): clean_move, move_tokens /
move_integers, safe_echo to quote the agent, zero_sum_rewards(winner, players) for final rewards. A malformed move
gets info["format_error"] (the expected form); a well-formed illegal move gets info["action_is_valid"] = False and
an observation that says why.

TWO-PLAYER GAMES: info["player_id"] is the seat to act after reset and after every non-final step; the observation
is written for that seat (its private cards only); info["legal_moves"] lists that seat's moves as the agent would
write them. At the end set info["rewards"] (one per seat, zero-sum), info["winner"] (seat or None) and
info["success"] = the last mover won; the step reward is the mover's. Three invalid moves in a row by one seat
forfeit. Make chance-heavy games a multi-hand match so skill decides the winner.

HINT: a rule, a threat or a strategic fact ("your opponent can complete the top row", "the nim-sum should be zero
after your move"), never the move or the solution, and no text that is itself a winning move. A difficulty knob
changes the search space, scramble depth, guesses allowed or board size.
"""


@functools.cache
def designer_guidance() -> str:
    """The guidance above plus the generated API reference of every helper environment code may import."""
    return GUIDANCE + "\n" + api_reference(spade_sandbox_modules())


def parse_action(text: str) -> ParsedAction:
    """A move string, cleaned (see :func:`clean_move`); the game's rules decide whether it is legal."""
    if not isinstance(text, str):
        return ParsedAction(format_error=f"a move must be text, got {type(text).__name__}")
    if not text.strip():
        return ParsedAction(format_error="empty move: reply with one move")
    if len(text) > MAX_MOVE_CHARS:
        return ParsedAction(format_error=f"a move is a short string (at most {MAX_MOVE_CHARS} characters)")
    move = clean_move(text)
    if move is None:
        return ParsedAction(format_error="the move has unprintable characters; reply with plain text")
    return ParsedAction(value=move)


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="games",
            description="Puzzles and two-player zero-sum self-play games with rule-checked moves.",
            designer_guidance=designer_guidance(),
            worked_examples=WORKED_EXAMPLES,
            parse_action=parse_action,
            topics={"deduction": 1.0, "planning puzzles": 1.0, "board games": 1.0, "card games": 0.5,
                    "combinatorial games": 1.0},
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"spade_domains.games.seeds.{name}") for name in SEED_MODULES]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in VERIFY_EXPORTS}}
