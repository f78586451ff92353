"""Cheap policies must not win: the ``baselines`` stage."""

from __future__ import annotations

from dataclasses import dataclass

from spade_core.seeding import screening_seeds
from spade_core.validation.adversaries import (
    ActionTemplate,
    Adversary,
    adversaries,
    answer_space,
    answer_walk,
    bisection,
    direction,
    range_listing,
)
from spade_core.validation.answer_numbers import whole_answer
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import (
    random_text_policy,
    reference_policy,
    repeat_first_policy,
)
from spade_core.validation.replay import (
    answer_template,
    labelled,
    policy_wins,
    single_player,
    too_often,
)
from spade_core.validation.report import StageResult, fail, ok


def adversary_seeds(c: Candidate) -> list[int]:
    """The reference seeds first (so a policy's rewards can be compared with solving the same task), then more."""
    extra = screening_seeds(c.config.screen_seeds + c.config.baseline_episodes)
    return list(dict.fromkeys([*c.config.seeds, *extra]))


@dataclass
class AdversaryResult:
    name: str
    wins: int
    episodes: int
    won_seeds: list[int]

    @property
    def rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0


def adversary_rate(c: Candidate, family: list[Adversary]) -> AdversaryResult:
    """Screen on a few seeds; a policy that wins any of them plays the confirmation seeds too. A ``family`` of
    several policies (single-turn tries of different candidates) wins a seed if any of its members does."""
    seeds = adversary_seeds(c)
    screen = seeds[: c.config.screen_seeds]
    name = family[0].name

    def play_seed(seed: int) -> bool:
        return any(policy_wins(c, member.make(), seed, member.name, member.max_steps) for member in family)

    won = [s for s in c.clock.items(screen, f"screening seeds of {name}") if play_seed(s)]
    played = len(screen)
    if won:
        for seed in c.clock.items(seeds[len(screen): len(screen) + c.config.baseline_episodes],
                                  f"confirmation seeds of {name}"):
            played += 1
            if play_seed(seed):
                won.append(seed)
    return AdversaryResult(name, len(won), played, won)


def guess_share(c: Candidate, seeds: list[int]) -> float:
    """The share of ``seeds`` one blind guess wins when the answer space is small: the share of the commonest of
    the answers (final actions, spaces and case aside) the reference gives on those seeds' solved puzzles, when it
    gives two or more (yes/no: about 1/2; one of four options: about 1/4). 0 when the reference gives one answer on
    every seed (then a constant wins everywhere, which no allowance may excuse), when its commonest answer is
    confidently more common than ``max_guess_share`` (a task whose answer is nearly always the same), and for games
    of several players."""
    if not single_player(c):
        return 0.0
    played = {e.seed: e for e in c.reference_episodes}
    answers: dict[str, int] = {}
    for seed in seeds:
        episode = played.get(seed) or c.run(seed, reference_policy)
        if episode.success and episode.steps:
            answer = episode.steps[-1][0].strip().lower()
            answers[answer] = answers.get(answer, 0) + 1
    commonest = max(answers.values(), default=0)
    if len(answers) < 2 or too_often(commonest, len(seeds), c.config.max_guess_share):
        return 0.0  # one answer everywhere, or one answer far more often than a small space's chance
    return commonest / len(seeds)


def check_baselines(c: Candidate) -> StageResult:
    """Adversarial policies must not win: plausible constants, the same well-formed action to the end, values
    copied from the observation, many candidates in one action, enumeration up to max_turns, the reference's answer
    space walked where it fits in max_turns, random text. In a
    small answer space a guess is right by chance (:func:`guess_share`), so no policy may win more than that."""
    assert c.manifest is not None
    template = answer_template(c)
    single = c.manifest.single_turn
    pool = adversaries(template, max_turns=c.manifest.max_turns, single_turn=single)
    pool += [Adversary("random text", lambda: random_text_policy),
             Adversary("a random action repeated every turn", repeat_first_policy)]
    search = None if single else feedback_search(c, template)
    pool += [search] if search is not None else []
    walk = None if single else walked_answers(c)
    pool += [walk] if walk is not None else []
    answers = whole_answers(c)
    pool += range_listing(template, min(answers), max(answers), c.manifest.max_action_chars) if answers else []
    results = [adversary_rate(c, [adversary]) for adversary in pool]
    limit = c.config.baseline_max_success
    bad = [r for r in results if too_often(r.wins, r.episodes, limit)]
    if bad:
        limit = max(limit, guess_share(c, adversary_seeds(c)[: max(r.episodes for r in bad)]))
        bad = [r for r in bad if too_often(r.wins, r.episodes, limit)]
    rates = {r.name: round(r.rate, 3) for r in results if r.wins}
    if bad:
        worst = max(bad, key=lambda r: r.rate)
        seeds = ", ".join(map(str, worst.won_seeds[:8]))
        return fail("baselines", f"the policy '{worst.name}' wins {worst.wins} of {worst.episodes} episodes "
                    f"(seeds {seeds}); a sound task allows at most {limit:.0%}"
                    + (" (the share of its commonest answer)" if limit > c.config.baseline_max_success else ""),
                    _adversary_causes(worst.name), ["check the exact answer against the task's own solution",
                                                    "enforce the stated try limit (end the episode when it is used up)",
                                                    "make the answer space large and keep the answer out of the "
                                                    "observation"], rates=rates)
    return ok("baselines", f"{len(results)} adversarial policies (constants, copies of the observation, "
              f"concatenations, enumeration, random text) win at most {max((r.rate for r in results), default=0):.0%}",
              rates=rates)


def feedback_search(c: Candidate, template: ActionTemplate) -> Adversary | None:
    """A binary search steered by too-high/too-low feedback, over the range of the reference's whole-number answers
    on the seeds it played, where the reference never gets such feedback itself: a task whose reference computes
    each answer at its first try, yet whose feedback lets a search find it, is won without the computation. A
    guessing game is not searched: its reference follows the feedback, or two seeds open alike and need different
    answers (a hidden secret that the reference may read). None where that does not apply."""
    episodes = [e for e in c.reference_episodes if e.error is None and e.steps]
    if any(direction(obs) for e in episodes for obs in e.observations):
        return None
    answers_by_opening: dict[str, set[str]] = {}
    for e in episodes:
        answers_by_opening.setdefault(e.reset_obs, set()).add(e.steps[0][0])
    if any(len(answers) > 1 for answers in answers_by_opening.values()):
        return None  # one opening, several answers: a hidden secret, found by search by design (a guessing game)
    answers = whole_answers(c)
    if len(set(answers)) < 2:
        return None
    return bisection(template, min(answers), max(answers))


WALK_SEEDS = 12
"""Seeds whose reference answers give the answer space :func:`walked_answers` walks."""


def walked_answers(c: Candidate) -> Adversary | None:
    """Every answer of the shape the reference's final answers share on its first :data:`WALK_SEEDS` seeds (those
    it solves), tried one per turn (:func:`~spade_core.validation.adversaries.answer_space`), where the space fits
    in max_turns: a wrong try that leaves the episode open and more turns than answers let it win by listing. None
    for games of several players and where the space does not fit."""
    assert c.manifest is not None
    if not single_player(c):
        return None
    played = {e.seed: e for e in c.reference_episodes}
    finals = []
    for i, seed in enumerate(c.clock.items(c.config.seeds[:WALK_SEEDS], "reference answers to walk")):
        episode = played.get(seed)
        if episode is None:  # the reference stage plays these seeds too: it takes them from here, hints recorded alike
            episode = labelled(c.run(seed, reference_policy, record_hints=i < c.config.hint_episodes), "reference")
            c.reference_episodes.append(episode)
        if episode.success and episode.steps:
            finals.append(episode.steps[-1][0].strip())
    space = answer_space(finals, c.manifest.max_turns)
    return answer_walk(space) if space else None


MAX_SEARCH_DIGITS = 12
"""Answers longer than this are not searched (and bound the integers built from agent-free text)."""


def whole_answers(c: Candidate) -> list[int]:
    """The whole-number answers of the reference's every step, over the seeds it played (numbers of at most
    :data:`MAX_SEARCH_DIGITS` digits)."""
    return [int(core) for e in c.reference_episodes if e.error is None for action, *_ in e.steps
            if (core := whole_answer(action)) is not None and len(core) <= MAX_SEARCH_DIGITS]


def _adversary_causes(name: str) -> list[str]:
    if "feedback" in name:
        return ["the feedback to a wrong try tells which way or how far the answer is (or what it was), so a search "
                "finds it without solving", "more tries than the feedback allows for the answer space"]
    if "enumerating" in name or "walking" in name:
        return ["the try limit is not enforced, so every candidate can be tried", "max_turns is larger than the "
                "answer space"]
    if "observation quotes" in name:
        return ["one offered reply played every turn (sitting out, passing, one fixed offer) meets the win condition",
                "the win condition is too weak (>= where the text says more than)"]
    if "observation" in name:
        return ["the answer is visible in the observation", "the verifier accepts a value the task shows"]
    if "repeated" in name:
        return ["the verifier accepts a fixed answer", "success is granted when the turns run out",
                "a substring/any-number check accepts an action holding many candidates"]
    return ["the verifier accepts wrong actions", "the task can be guessed"]
