"""The privileged hint helps and does not leak the answer into what the agent sees: the ``hint`` stage."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spade_core.validation.adversaries import (
    Adversary,
    hint_follower,
)
from spade_core.validation.episodes import (
    Episode,
    hint_policy,
    reference_policy,
)
from spade_core.validation.hint_leaks import DecodedText, new_leaks
from spade_core.validation.mutations import memorising, program_in
from spade_core.validation.report import StageResult

if TYPE_CHECKING:
    pass

from spade_core.validation.baselines import adversary_rate
from spade_core.validation.candidate import Candidate
from spade_core.validation.replay import (
    answer_template,
    labelled,
    replay_then,
    single_player,
    too_often,
)
from spade_core.validation.report import fail, ok


def _hinted_references(c: Candidate) -> list[Episode]:
    """Reference episodes with the hint read before every action (replayed with hints when they were not)."""
    wanted = c.config.hint_episodes
    usable = [e for e in c.reference_episodes if e.error is None and (e.success or not single_player(c))]
    out = []
    for episode in c.clock.items(usable[:wanted], "hint replays"):
        if len(episode.hints) != len(episode.steps):
            episode = labelled(c.run(episode.seed, reference_policy, record_hints=True), "reference")
        if episode.error is None and len(episode.hints) == len(episode.steps):
            out.append(episode)
    return out


@dataclass
class _LeakTally:
    episodes: set[int] = field(default_factory=set)
    turns: int = 0  # turns at which the decoder recovered the target
    targets: set[str] = field(default_factory=set)  # the distinct targets it recovered
    strong: bool = False
    example: str = ""


def _targets(episode: Episode, final_answers: bool) -> list[list[tuple[str, str]]]:
    """Per turn, what the hint must not give away: the next reference action and (single-player) the final answer."""
    final = episode.steps[-1][0]
    out = []
    for action in episode.actions:
        if not final_answers:
            out.append([("next action", action)])
        else:
            out.append([("next action", action), ("answer", final)] if action != final else [("answer", final)])
    return out


def seed_independent_hints(episodes: list[Episode], final_answers: bool) -> set[tuple[str, str]]:
    """``(what, hint text)`` pairs where the very same hint text is shown on two or more seeds at turns whose
    ``what`` (next action or answer) differs: one text read alike where the targets differ cannot tell them apart,
    so the digits of a fixed rule ("the Grundy values 0,1,2,3,1,4...") that happen to spell one turn's move are no
    leak. A hint that is the same only within one episode (a whole plan, shown at every turn) is not among them."""
    seen: dict[tuple[str, str], dict[int, set[str]]] = {}
    for episode in episodes:
        for hint, targets in zip(episode.hints, _targets(episode, final_answers), strict=False):
            for what, target in targets:
                seen.setdefault((what, hint), {}).setdefault(episode.seed, set()).add(target)
    return {key for key, by_seed in seen.items()
            if len(by_seed) >= 2 and len(set().union(*by_seed.values())) >= 2}


def scan_hint_leaks(episodes: Iterable[Episode], *, final_answers: bool) -> dict[tuple[str, str], _LeakTally]:
    """Run every decoder over the hint at every turn of every episode, against the final answer and the next
    reference action. A strong leak counts only where the observation at that turn does not already give the
    target away; a weak one (a short answer, a nearby number) is judged by consistency: it must track the target
    on a large share of the turns, across episodes and for different targets (a hint that always says "four" in
    a game whose best move is often 4 does not). The tally
    keyed ``("turns", "")`` holds how many turns were scanned."""
    episodes = list(episodes)
    fixed = seed_independent_hints(episodes, final_answers)
    tallies: dict[tuple[str, str], _LeakTally] = {("turns", ""): _LeakTally()}
    decoded: dict[str, DecodedText] = {}

    def prepared(text: str) -> DecodedText:
        if text not in decoded:
            decoded[text] = DecodedText(text)
        return decoded[text]

    for episode in episodes:
        # everything the agent sees in the episode, uncut: a tool or move the task names anywhere is no leak
        visible = DecodedText("\n".join(dict.fromkeys([episode.reset_obs, *episode.observations,
                                                        *(s[1] for s in episode.steps)])), limit=None)
        for turn, (hint, targets) in enumerate(zip(episode.hints, _targets(episode, final_answers), strict=False)):
            tallies[("turns", "")].turns += 1
            hint_text = prepared(hint)
            for what, target in targets:
                if (what, hint) in fixed:
                    continue
                for leak in new_leaks(hint_text, visible, target):
                    tally = tallies.setdefault((what, leak.decoder), _LeakTally())
                    tally.episodes.add(episode.seed)
                    tally.targets.add(target)
                    tally.turns += 1
                    if leak.strong and not tally.strong:
                        tally.strong = True
                        tally.example = ""
                    if not tally.example:
                        tally.example = (f"the hint at turn {turn + 1} of seed {episode.seed} "
                                         f"({hint[:100]!r}) {leak.how.format(what=what)} ({target[:40]!r})")
    return tallies


def _hint_lists_tests(c: Candidate, episodes: list[Episode]) -> StageResult | None:
    """Program tasks: a program answering only the examples the observation and the hint show (else echoing its
    input) must not pass where the one from the observation alone does not: the hint would list the hidden tests."""
    for episode in episodes[:2]:
        program = program_in(episode.steps[-1][0]) if episode.steps and episode.hints else None
        if program is None or len(episode.steps) != 1:
            continue
        with_hint = memorising(program, f"{episode.reset_obs}\n{episode.hints[0]}", echo=True)
        if with_hint is None:
            continue
        alone = memorising(program, episode.reset_obs, echo=True)
        if alone is not None and alone.action == with_hint.action:
            continue  # the hint shows no example the observation does not
        info = replay_then(c, episode, with_hint.action)
        if info is None or not info.get("success"):
            continue
        seen = replay_then(c, episode, alone.action) if alone is not None else None
        if seen is not None and seen.get("success"):
            continue  # the shown examples alone pass: the swap stage's finding, not the hint's
        return fail("hint", f"seed {episode.seed}: {with_hint.what} in the observation and the hint passes every "
                    "test: the hint lists the hidden tests with their expected values",
                    ["the hint quotes test cases (inputs and expected outputs)"],
                    ["hint at the method or an edge case to think about, never a test's expected value"])
    return None


def check_hint(c: Candidate) -> StageResult:
    """Hint hygiene by information (decoders at every turn) and by behaviour (following the hint must not win)."""
    assert c.manifest is not None
    stage = "hint"
    episodes = _hinted_references(c)
    tallies = scan_hint_leaks(c.clock.items(episodes, "hint episodes scanned"), final_answers=single_player(c))
    scanned = tallies.pop(("turns", "")).turns
    needed = c.config.hint_leak_min_share * scanned
    for (what, decoder), tally in sorted(tallies.items(), key=lambda kv: (not kv[1].strong, -kv[1].turns)):
        if tally.strong or (tally.turns >= needed and len(tally.episodes) >= 2 and len(tally.targets) >= 2):
            share = "" if tally.strong else \
                f" (at {tally.turns} of {scanned} turns, in {len(tally.episodes)} of {len(episodes)} episodes)"
            return fail(stage, tally.example[0].upper() + tally.example[1:] + share,
                        ["the hint gives the solution away, encoded or not"],
                        ["hint at a plan, a rule or an intermediate result that still leaves work to do"],
                        decoder=decoder, target=what)
    listed = _hint_lists_tests(c, episodes)
    if listed is not None:
        return listed
    template = answer_template(c)
    attempts = 3 if c.manifest.single_turn else 1
    follower = adversary_rate(c, [hint_follower(template, k) for k in range(attempts)])
    copier = adversary_rate(c, [Adversary("copying the hint text as the action", lambda: hint_policy)])
    limit = c.config.baseline_max_success
    for result in (follower, copier):
        if too_often(result.wins, result.episodes, limit):
            return fail(stage, f"{result.name} wins {result.wins} of {result.episodes} episodes (seeds "
                        f"{', '.join(map(str, result.won_seeds[:8]))})",
                        ["the hint is the answer or an instruction that solves the task when obeyed"],
                        ["make the hint information, not an action"], rates={result.name: result.rate})
    return ok(stage, f"no decoder recovers the answer or the next action from the hint over {len(episodes)} "
              f"episodes; following the hint wins {follower.rate:.0%}, copying it {copier.rate:.0%}")
