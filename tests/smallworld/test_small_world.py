"""The small world end to end (design programs -> extraction -> validation -> registry -> episode runner -> regret
-> designer reward -> per-role advantages -> reference trainer): the defended objective pays nothing for a hint that
carries the answer, and the undefended one drifts to such designs. Directions only, never timings, each asserted on
every one of several seeds over short runs (the share of exploit designs moves within a few iterations); the
comparison with the uniform designer and the fixed pool over 5 seeds and 20 iterations, with confidence intervals,
is benchmarks/bench_small_world.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.smallworld.family import ANSWER_HINT, LETTERS, THIRDS, Design, doubled
from spade_core.smallworld.language import design_reply, extract_design, opening
from spade_core.smallworld.policy import agent_prompt_ids, build_policy
from spade_core.smallworld.summary import directions
from spade_core.smallworld.world import SmallWorld, WorldConfig, run_world

ITERATIONS = 8
SEEDS = (0, 1)

pytestmark = pytest.mark.timeout(1500)
"""The first test here builds the policy (a format pass of 1,800 steps on two threads) and the defended runs in its
setup: about 5 minutes beside another test worker on 2 cores, more on a loaded machine; the suite's 600 s limit per
test would fail a slow machine, not a hang."""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_policy(tmp_path_factory.mktemp("small-world") / "policy", seed=0)


def _runs(arm: str, policy: Path, tmp_path_factory: pytest.TempPathFactory) -> list[list[dict]]:
    return [run_world(WorldConfig(arm=arm, seed=seed, iterations=ITERATIONS), policy,
                      tmp_path_factory.mktemp(f"{arm}-{seed}")) for seed in SEEDS]


@pytest.fixture(scope="module")
def defended(policy: Path, tmp_path_factory: pytest.TempPathFactory) -> list[list[dict]]:
    return _runs("defended", policy, tmp_path_factory)


@pytest.fixture(scope="module")
def undefended(policy: Path, tmp_path_factory: pytest.TempPathFactory) -> list[list[dict]]:
    return _runs("undefended", policy, tmp_path_factory)


@pytest.fixture
def runs(defended: list[list[dict]], undefended: list[list[dict]]) -> dict[str, list[list[dict]]]:
    return {"defended": defended, "undefended": undefended}


def test_the_format_pass_teaches_copying_reading_hints_and_the_relay_shape(policy: Path) -> None:
    """A trivial design must be trivial for the format-trained agent with the hint too (regret 0, not negative), a
    relay must be answered in its shape (a code letter, then the letter) before self-play starts, and a hint that
    names the answer doubled is undone, with the task or alone (the hint-only arm's prompt)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(policy)
    model = AutoModelForCausalLM.from_pretrained(policy).eval()

    def greedy(observation: str, hint: str | None, *, hint_only: bool = False) -> str:
        ids = agent_prompt_ids(tokenizer, observation, hint, hint_only=hint_only)
        with torch.no_grad():
            out = model.generate(torch.tensor([ids]), max_new_tokens=4, do_sample=False)
        return tokenizer.decode(out[0, len(ids):], skip_special_tokens=True).strip()

    hint = {letter: f"in the {THIRDS[LETTERS.index(letter) // 4]} third" for letter in LETTERS}
    cases = [(band, letter) for band in range(4) for letter in LETTERS]
    assert sum(greedy(f"repeat {b} {x}", None) == x for b, x in cases) >= 46
    assert sum(greedy(f"repeat {b} {x}", hint[x]) == x for b, x in cases) >= 46
    shapes = [greedy(f"relay {b} {x}", None).split() for b, x in cases]
    assert sum(len(w) == 2 and w[0] in LETTERS and w[1] == x for w, (_, x) in zip(shapes, cases)) >= 46
    leak = {answer: ANSWER_HINT + doubled(answer) for answer in [*LETTERS, *(f"h {x}" for x in LETTERS)]}
    assert sum(greedy(f"whisper {b} {1000 + 37 * n}", leak[x]) == x for n, (b, x) in enumerate(cases)) >= 44
    assert sum(greedy("", leak[f"h {x}"], hint_only=True) == f"h {x}" for _, x in cases) >= 44



@pytest.mark.parametrize("arm", ["defended", "undefended"])
def test_every_iteration_went_through_the_whole_pipeline(arm: str, request: pytest.FixtureRequest) -> None:
    for run in request.getfixturevalue(arm):  # one arm's runs per test: each test's set-up stays minutes long
        assert len(run) == ITERATIONS
        for r in run:
            played = [d for d in r["designs"] if d["regret"] is not None]
            assert r["agent_tokens"] > 0 and played and all(d["gate"] and d["status"] == "accepted" for d in played)
            assert all(d["reward"] is not None for d in r["designs"])
            # the defended arm plays the hint alone (K per design, not trained on); the undefended one does not
            assert (r["hint_only_episodes"] > 0) == (arm == "defended")
            assert all((d["hint_only"] is not None) == (arm == "defended") for d in played)


def test_the_defended_objective_pays_nothing_for_a_hint_that_carries_the_answer(
        runs: dict[str, list[list[dict]]]) -> None:
    """Every exploit design the defended arm played scored by its hint-only arm earned nothing; the undefended arm
    paid them, and more than it paid anything else."""
    for run in runs["defended"]:
        hacked = [d for r in run for d in r["designs"] if d["category"] == "exploit" and d["gate"] == "hint_only"]
        assert hacked and all(d["reward"] == 0.0 for d in hacked)
    for run in runs["undefended"]:
        paid = [d["reward"] for r in run[:3] for d in r["designs"] if d["category"] == "exploit"]
        other = [d["reward"] for r in run[:3] for d in r["designs"] if d["category"] != "exploit"]
        assert paid and sum(paid) / len(paid) > max(0.3, sum(other) / len(other))


def test_the_defended_designer_leaves_the_exploits_and_the_undefended_one_drifts_to_them(
        runs: dict[str, list[list[dict]]]) -> None:
    """On every seed the defended arm's exploit share falls from its first third to its last and ends far below the
    undefended arm's; over the seeds the undefended arm's rises."""
    pairs = [(directions(d), directions(u)) for d, u in zip(runs["defended"], runs["undefended"])]
    for d, u in pairs:
        assert d["exploit_late"] < d["exploit_early"]
        assert u["exploit_late"] > d["exploit_late"] + 0.3
    assert sum(u["exploit_late"] - u["exploit_early"] for _, u in pairs) > 0


def test_the_agent_learns_the_relay_under_the_defended_objective(defended: list[list[dict]]) -> None:
    """Held-out success (no hint, unseen seeds of every relay design) ends far above where it started."""
    for run in defended:
        assert run[-1]["held_out_success"] > run[0]["held_out_success"] + 0.3


@pytest.mark.slow
def test_over_twenty_iterations_the_defended_agent_ends_at_least_as_good(policy: Path,
                                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    """The long variant (about 15 minutes on 2 cores): once the undefended designer has moved on to whispers, its
    agent slips; the defended arm's held-out success at the end is at least the undefended arm's on every seed."""
    for seed in (0, 1, 2):
        ends = {arm: run_world(WorldConfig(arm=arm, seed=seed, iterations=20), policy,
                               tmp_path_factory.mktemp(f"long-{arm}-{seed}"))[-1]["held_out_success"]
                for arm in ("defended", "undefended")}
        assert ends["defended"] >= ends["undefended"] and ends["defended"] >= 0.95, (seed, ends)


def _design(label: str) -> Design:
    return extract_design(f"{opening()} {label}")


def test_a_designer_with_edits_plays_one_knob_edits_of_its_own_samples(policy: Path, tmp_path: Path) -> None:
    """``edit_share``: that share of the designs are edits of the iteration's samples, written as the designer's own
    program (with the current policy's logprob of each token, for its update), then played and rewarded alike."""
    world = SmallWorld(WorldConfig(arm="defended", seed=0, iterations=2, edit_share=0.25,
                                   no_hint_success_penalty=0.0), policy, tmp_path)
    try:
        outcomes, generations = world._design_phase(0)
        edits = [(o, g) for o, g in zip(outcomes, generations) if o.edited]
        assert len(outcomes) == len(generations) == 16 and len(edits) == 4 and all(o.edited for o in outcomes[-4:])
        eos = [int(world.tokenizer.eos_token_id)]
        for outcome, generation in edits:
            assert generation.completion_ids == world.tokenizer.encode(design_reply(outcome.design),
                                                                       add_special_tokens=False) + eos
            scored = world.generator.score([generation.prompt_ids + generation.completion_ids])[0]
            assert generation.logprobs == pytest.approx(scored[-len(generation.completion_ids):], abs=1e-4)
        records = [world.iteration(i) for i in range(2)]
    finally:
        world.close()
    for record in records:
        edited = [d for d in record.designs if d["edited"]]
        sampled = [_design(d["design"]) for d in record.designs if not d["edited"] and d["design"]]
        assert len(edited) == 4
        for entry in edited:
            design = _design(entry["design"])
            assert entry["status"] == "accepted" and entry["reward"] is not None  # played and rewarded
            assert any(sum(getattr(design, k) != getattr(s, k) for k in ("band", "mode")) == 1 for s in sampled)


@pytest.mark.parametrize("knobs", [{"arm": "uniform", "edit_share": 0.25}, {"arm": "fixed", "edit_share": 0.1},
                                   {"edit_share": 1.0}, {"edit_share": -0.1}])
def test_edits_need_a_designer_and_samples_to_edit(knobs: dict) -> None:
    with pytest.raises(ValueError, match="edit_share"):
        WorldConfig(**knobs)
