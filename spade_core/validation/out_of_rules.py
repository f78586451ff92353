"""Moves outside the stated rules do not win: the ``out_of_rules`` stage (label answers: games' moves).

The property: a player that only makes moves outside the legal set the game itself states does not win on most
seeds. The legal set is ``info['legal_moves']`` where the game lists it, else the numbers its observation allows
("take 1, 2 or 3", "1 to 6", "between 1 and 9"); a move is outside it when it is not listed, or when a number in it is
not allowed (with no stated range, only numbers of 100,000 or more are out of range). The moves tried are the
reference's own moves with their number replaced (in the reference's format: ``move 3`` -> ``move 999999``) by
extreme values and by each number the first observation shows (the target, the goal cell), and the reference's last
move played first (a jump straight to the end). Every turn the player makes the next of them that is outside the
rules then; it stops when none is. A game that accepts them (a clamped step, a jump to the target, an unchecked
count) is won this way; a sound one refuses each, and the player never wins.

Where the game lists its legal moves, a second family of games is judged apart (so that games of the first family do
not dilute it): the seat repeats, every turn, its own first move of the reference game. It is legal the first time and
lands on the seat's own squares after; a game whose legal-move guard was lost lets it win by repetition.

In two-player games the seat making only moves outside the rules, each refused, must end beaten (the contract's three
invalid moves in a row forfeit): a game that counts only unreadable replies lets a seat about to lose send a readable
illegal move to the turn limit's draw. A move the game refuses (``info['format_error']`` or ``action_is_valid``
False, the game going on) changes nothing: where the game lists its legal moves, it lists the same ones after the
refusal as before it (a move applied before it is checked, and not undone on refusal, slides a tile anyway). And a move the game lists in ``info['legal_moves']`` is never refused
(:mod:`~spade_core.validation.listed_moves`).

Where the game lists its legal moves as the very text it expects (the reference's every move is one of them), a move
with an extreme value (no reading of the rules takes ``999999`` or ``-1`` for a count or a cell) must also not be
played silently as one of them; numbers the observation shows are not judged so, as a game may take another name for
a listed move (``split 1 5`` of a 7-heap for the listed ``split 1 2``, naming the other part). A move that gets
no ``info['format_error']`` (nor ``action_is_valid`` False) and does not end the game with the mover losing is
replayed beside each listed legal move from the same position, the reference then playing on; when what follows (the
rewards, endings, movers, listed moves, winner) is the same as after some legal move, the game played it as that
move (a malformed move falling through to an ``else`` that takes a coin), and it fails even when that move does not
win: the player plays a legal game without being told its move was not one.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from spade_core import linear_re
from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.validation.adversaries import MAX_OBSERVATION_CHARS, ActionTemplate
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, begin, reference_policy, take_step
from spade_core.validation.listed_moves import listed_moves, refused_listed
from spade_core.validation.replay import labelled, seat_winner, too_often
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_core.validation.turn_keeping import handed_over

RULE = "illegal moves (out of range, goal jumps) never win, stall, pass as listed or alter state; listed moves work"

EXTREMES = ("999999", "-999999", "-1", "0", "99")
"""Values put where the reference's moves put their number."""
HUGE = 100_000
"""A number this large is out of range even where the game states no range."""
SEEDS = 8
"""Seeds the out-of-rules player plays."""
MAX_GOALS = 6
"""Numbers of the first observation tried as moves at most."""
CONTINUATION_TURNS = 40
"""Turns of the reference's play compared after a move outside the rules and after each listed legal move."""
MAX_LEGAL_REPLAYS = 16
"""Listed legal moves a move outside the rules is compared with at most."""
MAX_JUDGED = 3
"""Games whose first silently taken move outside the rules is compared with the legal ones."""
STALL_RUN = 4
"""Refused moves in a row after which a seat sending only moves outside the rules should have forfeited (the
contract: three invalid moves in a row by one seat forfeit); a two-player game where it is still not beaten stalls."""

_INT = linear_re.compile(r"-?[0-9]+")
_LIST = linear_re.compile(r"([0-9]+)((?:, [0-9]+)*),? or ([0-9]+)")
_SPAN = linear_re.compile(r"(?i)(?:between )?([0-9]+) (?:to|and) ([0-9]+)|([0-9]+)-([0-9]+)")


def stated_numbers(obs: str) -> set[int] | None:
    """The numbers the observation allows ("1, 2 or 3", "1 to 6", "between 1 and 9", "1-3"); None when it states
    none."""
    obs = obs[:MAX_OBSERVATION_CHARS]
    allowed: set[int] = set()
    for match in _LIST.finditer(obs):
        allowed.update(int(n) for n in _INT.findall(match.group()))
    for match in _SPAN.finditer(obs):
        low, high = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        a, b = int(low), int(high)
        if a <= b and b - a <= 10_000:
            allowed.update(range(a, b + 1))
    return allowed or None


def refused(info: dict[str, Any], over: bool, won: bool) -> bool:
    """Whether the game refused a move outside its listed legal moves: it says so (``format_error``, or
    ``action_is_valid`` False), or the move ended the game without the mover winning (a forfeit)."""
    if over:
        return not won
    return info.get("format_error") is not None or info.get("action_is_valid") is False


def outside_rules(action: str, obs: str, info: dict[str, Any]) -> bool:
    """Whether ``action`` is outside the legal set the game states before it (see the module's docstring)."""
    legal = listed_moves(info)
    if legal is not None:
        return action.strip().lower() not in legal
    numbers = [int(n) for n in _INT.findall(action)]
    if any(abs(n) >= HUGE for n in numbers):
        return True
    allowed = stated_numbers(obs)
    return allowed is not None and any(n not in allowed for n in numbers)


def _templates(reference: Episode) -> list[ActionTemplate]:
    return [t for t in dict.fromkeys(ActionTemplate.of(a) for a in reference.actions) if not t.raw] or \
        [ActionTemplate()]


def candidates(reference: Episode) -> list[str]:
    """The moves tried: the reference's moves with extreme values and the first observation's numbers in place of
    their number, and its last move."""
    goals = list(dict.fromkeys(_INT.findall(reference.reset_obs[:MAX_OBSERVATION_CHARS])))[:MAX_GOALS]
    out = [t.render(v) for t in _templates(reference) for v in (*EXTREMES, *goals)]
    return list(dict.fromkeys([*out, *reference.actions[-1:]]))


def extreme_moves(reference: Episode) -> set[str]:
    """The reference's moves with an extreme value in place of their number: moves no reading of the rules takes,
    judged when a game that lists its moves lets one pass silently."""
    return {t.render(v) for t in _templates(reference) for v in EXTREMES}


def own_first_move(reference: Episode, seat: int) -> list[str]:
    """The first move ``seat`` made in the reference game (empty if none): repeated every turn, it is legal the first
    time and lands on its own taken squares after, which a game that lists its legal moves no longer lists."""
    movers = [reference.reset_info.get("player_id", 0), *(i.get("player_id", 0) for i in reference.infos)]
    return next(([a] for a, mover in zip(reference.actions, movers, strict=False) if mover == seat), [])


@dataclass
class OutsidePlay:
    """One game of moves outside the rules: the episode, how many such moves were made, the longest run of the
    seat's moves refused in a row, the steps (indices) where the game listed its legal moves and let one outside
    them pass silently (:func:`refused` says it did not), and the steps where it refused the move yet listed other
    legal moves after it (the refused move changed the position)."""

    episode: Episode
    made: int = 0
    refused_run: int = 0
    taken: list[int] = field(default_factory=list)
    moved: list[int] = field(default_factory=list)  # steps refused that changed the listed legal moves


def play_outside(c: Candidate, seed: int, moves: list[str], seat: int, *, repeat: bool = False,
                 judged: Collection[str] = ()) -> OutsidePlay:
    """``seat`` makes, every turn, the next of ``moves`` outside the rules then (the reference plays the other
    seats); stops when none is. With ``repeat``, ``seat`` plays ``moves[0]`` every turn, legal or not, and ``made``
    counts the turns it was outside the rules. Only a move in ``judged`` is recorded in ``taken`` when a game
    listing its moves lets it pass (a repeated legal move may be another name for a listed one)."""
    assert c.manifest is not None
    env = c.env()
    out = OutsidePlay(Episode(seed=seed, label="moves outside the stated rules"))
    started = begin(env, out.episode)
    if started is None:
        return out
    obs, info = started
    run = 0
    before = listed_moves(info)  # the legal moves listed before each step (None: the game lists none)
    for _ in range(c.manifest.max_turns):
        listed = False
        if info.get("player_id", 0) != seat:
            action = reference_policy(env, obs, info)
        elif repeat:
            action = moves[0]
            outside = outside_rules(action, obs, info)
            out.made += outside
            listed = outside and action in judged and before is not None
        else:
            start = out.made % len(moves)
            order = moves[start:] + moves[:start]
            action = next((m for m in order if outside_rules(m, obs, info)), None)
            if action is None:
                break
            out.made += 1
            listed = action in judged and before is not None
        seat_moved = info.get("player_id", 0) == seat
        obs, info, over = take_step(env, out.episode, obs, action)
        said_no = refused(info, over, _wins(out.episode, c.manifest.players, seat))
        after = listed_moves(info)
        if seat_moved and said_no and not over and out.episode.error is None and before is not None \
                and after is not None and after != before:
            out.moved.append(len(out.episode.steps) - 1)
        if listed and out.episode.error is None and not said_no:
            out.taken.append(len(out.episode.steps) - 1)
        if seat_moved:
            run = run + 1 if said_no else 0
            out.refused_run = max(out.refused_run, run)
        if over:
            break
        before = after
    if out.episode.error is not None:
        c.shared_env = None
    c.all_episodes.append(out.episode)
    return out


def _wins(episode: Episode, players: int, seat: int) -> bool:
    return episode.success if players == 1 else seat_winner(episode.final_info, players) == seat


def lists_its_moves(references: list[Episode]) -> bool:
    """Whether the game's listed legal moves are the very text it expects: wherever it lists them, the reference's
    move is one of them. A game whose reference plays another form ("take left" for a listed "left") accepts forms
    the list does not spell out, so a move missing from the list is not thereby outside the rules."""
    listed = False
    for episode in references:
        for turn, action in enumerate(episode.actions):
            legal = listed_moves(episode.infos[turn - 1] if turn else episode.reset_info)
            if legal is not None:
                if action.strip().lower() not in legal:
                    return False
                listed = True
    return listed


def _continuation(c: Candidate, episode: Episode, turn: int, action: str) -> tuple | None:
    """What follows ``action`` played at ``turn`` of ``episode`` (its earlier moves replayed), the reference then
    playing every seat for up to :data:`CONTINUATION_TURNS`: each step's reward, ending, mover, listed legal moves,
    success and winner (not the observation, which may echo the move). None when the environment failed."""
    prefix = [*episode.actions[:turn], action]

    def policy(env: Any, obs: str, info: dict[str, Any]) -> str:
        return prefix[env.turn] if env.turn < len(prefix) else env.reference_action()

    replay = c.run(episode.seed, policy, max_steps=len(prefix) + CONTINUATION_TURNS)
    if replay.error is not None or len(replay.steps) < len(prefix):
        return None
    legal = [listed_moves(i) for i in replay.infos[turn:]]
    return tuple((s[2], s[3], s[4], i.get("player_id"), tuple(sorted(m)) if m else None, bool(i.get("success")),
                  i.get("winner")) for s, i, m in zip(replay.steps[turn:], replay.infos[turn:], legal, strict=True))


def played_as(c: Candidate, episode: Episode, turn: int) -> str | None:
    """The listed legal move that the move outside the rules at ``turn`` was played as: the one whose continuation
    (:func:`_continuation`) is the same, found among the first :data:`MAX_LEGAL_REPLAYS` the game listed; None when
    none is (the move was refused in some other way)."""
    before = episode.infos[turn - 1] if turn else episode.reset_info
    legal = before.get(LEGAL_MOVES_KEY)
    after = _continuation(c, episode, turn, episode.actions[turn])
    if after is None or not isinstance(legal, list):
        return None
    return next((m for m in legal[:MAX_LEGAL_REPLAYS] if _continuation(c, episode, turn, m) == after), None)


def check_out_of_rules(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "out_of_rules"
    players = c.manifest.players
    references = [e for e in c.reference_episodes if e.error is None and e.steps][:SEEDS]
    if not references:
        return ok(stage, "no reference episode to take moves from")
    exact = lists_its_moves(references)
    taken: list[tuple[Episode, int, str]] = []
    judged: list[int] = []
    # family 0: moves outside the rules; family 1 (games listing their moves): a seat repeating its own first move
    won: dict[int, list[tuple[Episode, int]]] = {0: [], 1: []}
    played = {0: 0, 1: 0}
    stalled: list[tuple[Episode, int, int]] = []
    moved: list[tuple[Episode, int]] = []
    for reference in references:
        seat = reference.reset_info.get("player_id", 0) if players > 1 else 0
        families = (candidates(reference), own_first_move(reference, seat) if exact else [])
        extreme = extreme_moves(reference)
        for family, moves in enumerate(families):
            if not moves:
                continue
            game = play_outside(c, reference.seed, moves, seat, repeat=family == 1, judged=extreme)
            episode = game.episode
            if not game.made or episode.error is not None:
                continue
            played[family] += 1
            what = (f"repeating its first move {moves[0][:30]!r}" if family else
                    "making only moves outside the stated rules")
            labelled(episode, f"seat {seat} {what}" if players > 1 else what)
            if game.taken and exact and len(judged) < MAX_JUDGED:
                judged.append(game.taken[0])
                move = played_as(c, episode, game.taken[0])
                if move is not None:
                    taken.append((episode, game.taken[0], move))
            if family == 0 and game.moved:
                moved.append((episode, game.moved[0]))
            if _wins(episode, players, seat):
                won[family].append((episode, seat))
            elif players > 1 and family == 0 and game.refused_run >= STALL_RUN and \
                    seat_winner(episode.final_info, players) in (None, seat):
                stalled.append((episode, seat, game.refused_run))
    if taken:
        episode, i, move = taken[0]
        action, after = episode.steps[i][0], episode.steps[i][1]
        return fail_rule(stage, f"seed {episode.seed}, turn {i + 1}: {action[:30]!r} is not among the legal moves "
                         f"info['legal_moves'] lists, yet the game played it as the legal move {move[:30]!r} (the "
                         f"same rewards, endings and legal moves follow; no info['format_error'], action_is_valid "
                         f"not False): {after[:120]!r}; {len(taken)} of {len(judged)} games compared",
                         ["a malformed or illegal move falls through to a legal branch (an else that takes it as "
                          "one of the moves)", "the move is checked against a wider set than the listed one"],
                         ["check every move against the listed legal moves first; refuse any other with "
                          "info['format_error'] (the state unchanged) or end the game as a forfeit"],
                         rule=RULE, taken=len(taken))
    limit = c.config.out_of_rules_max_share
    if too_often(len(moved), played[0], limit):
        episode, i = moved[0]
        before = listed_moves(episode.infos[i - 1] if i else episode.reset_info) or []
        after = listed_moves(episode.infos[i]) or []
        return fail_rule(stage, f"seed {episode.seed}, turn {i + 1}: the game refused {episode.actions[i][:30]!r} "
                         f"(info['format_error'] or action_is_valid False) yet listed other legal moves after it "
                         f"({sorted(after)[:6]} where it listed {sorted(before)[:6]}): the refused move changed the "
                         f"position; so in {len(moved)} of {played[0]} games",
                         ["the move is applied before it is checked, and the refusal does not undo it"],
                         ["check the move first; on a refusal leave the state exactly as it was"],
                         rule=RULE, moved=f"{len(moved)}/{played[0]}", allowed=limit)
    family = next((f for f in won if too_often(len(won[f]), played[f], limit)), None)
    if family is not None:
        episode, seat = won[family][0]
        moves = ", ".join(repr(a[:30]) for a in episode.actions[:4])
        return fail_rule(stage, f"seed {episode.seed}: {episode.label} wins ({moves}); {len(won[family])} of "
                         f"{played[family]} such games won, at most {limit:.0%} allowed",
                         ["a number outside the stated range is accepted (clamped to the end, taken as is)",
                          "a move straight to the target is accepted without checking it is legal"],
                         ["check every move against the rules before applying it; refuse it as invalid otherwise"],
                         rule=RULE, wins=f"{len(won[family])}/{played[family]}", allowed=limit)
    if too_often(len(stalled), played[0], limit):
        return _stall_failure(stalled, played[0], limit)
    refusal, listed_played = (refused_listed(c, [r.seed for r in references])
                              if any(listed_moves(r.reset_info) is not None for r in references) else (None, 0))
    if refusal is not None:
        return fail_rule(stage, f"seed {refusal.seed}, turn {refusal.turn + 1}: the game listed {refusal.move!r} in "
                         f"info['legal_moves'] and refused it when a random legal player played it: "
                         f"{refusal.said[:160]!r}",
                         ["info['legal_moves'] and step() disagree (the list counts from 0 where step counts from 1, "
                          "names squares another way, lists the other seat's moves)"],
                         ["build info['legal_moves'] from the very check step() applies, as the agent types moves"],
                         rule=RULE, listed_played=listed_played)
    if players > 1:
        passed, refusals = handed_over(c, references)
        if passed is not None:
            return fail_rule(stage, f"seed {passed.seed}, turn {passed.turn + 1}: the game refused seat "
                             f"{passed.seat}'s move {passed.move!r} and went on with seat {passed.next_seat} to act: "
                             "a refused move hands the turn over, so junk gives the opponent two moves in a row",
                             ["an invalid move is treated as a pass (the turn changes before the move is checked)"],
                             ["on an invalid move keep info['player_id'] on the seat that sent it; three invalid "
                              "moves in a row by one seat forfeit"], rule=RULE, refusals=refusals)
    listed = (f"; of {len(judged)} moves outside the listed legal moves let pass, none played as one of them"
              if judged else "; every move outside the listed legal moves refused" if exact else "")
    repeats = f"; {len(won[1])} of {played[1]} games repeating a seat's first move won" if played[1] else ""
    accepted = f"; a random player's {listed_played} moves from info['legal_moves'] all accepted" if listed_played else ""
    return ok(stage, f"{played[0]} games of moves outside the stated rules: {len(won[0])} won{repeats}{listed}"
              f"{accepted}")


def _stall_failure(stalled: list[tuple[Episode, int, int]], played: int, limit: float) -> StageResult:
    """The stage's failure where a seat sending only moves outside the rules, each refused, is not beaten."""
    episode, seat, run = stalled[0]
    ending = "the game ends" if episode.finished else f"the game is cut off after {len(episode.steps)} turns"
    return fail_rule("out_of_rules", f"seed {episode.seed}: {episode.label}: {run} refused in a row and {ending} "
                     f"without seat {seat} beaten (winner {episode.final_info.get('winner')!r}); so in {len(stalled)} "
                     f"of {played} such games, at most {limit:.0%} allowed",
                     ["only unreadable replies count towards the invalid-move forfeit; a readable but illegal move "
                      "is refused and never counted", "a refused move resets the count or is treated as a pass"],
                     ["count every refused move, readable or not, towards the forfeit: three invalid moves in a row "
                      "by one seat lose the game"], rule=RULE, stalled=f"{len(stalled)}/{played}")
