"""The games domain plugin: move parsing, designer guidance and seed games."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, ParsedAction, SeedEnvironment

GUIDANCE = """\
Write a game environment: a single-player puzzle with feedback each turn, or a two-player zero-sum game whose
seats are both played by the agent (set info["player_id"] to the player to act; observations from that seat's
point of view; info["rewards"] with one reward per seat when the game ends). Illegal moves get an informative
observation and action_is_valid=False. A good privileged hint names a rule or a threat, not the move to play.
"""


def parse_action(text: str) -> ParsedAction:
    move = text.strip()
    if not move:
        return ParsedAction(format_error="empty move")
    if len(move) > 200:
        return ParsedAction(format_error="a move is a short string (at most 200 characters)")
    return ParsedAction(value=move)


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="games",
            description="Puzzles and two-player zero-sum games with rule-checked moves.",
            designer_guidance=GUIDANCE,
            worked_examples=("spade_domains.games.seeds.tic_tac_toe",),
            parse_action=parse_action,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment("spade_domains.games.seeds.tic_tac_toe")]
