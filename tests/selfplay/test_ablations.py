"""Every ablation and baseline knob does what it says: designer objective, grounding, memory in the prompt, the
fixed pool (no designer), and hint placement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from short_selfplay import overrides

from spade_core.corpora import open_corpus
from spade_core.designer.loop import DesignConfig, Designer
from spade_core.gym_bridge import make_env, open_store, sync_seed_environments
from spade_core.memory import EnvironmentMemory, HashingEmbedder
from spade_core.models.base import SamplingParams
from spade_core.models.tiny import build_tiny_model
from spade_core.rollout.errors import RolloutConfigError
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.scripted import ScriptedPolicy
from spade_core.rollout.specs import HINT_PLACEMENTS, EpisodeSpec, RolloutConfig
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import MEMORY_OFF, SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.selfplay.wiring import regret_config
from spade_core.smallworld.family import Design, module_source
from spade_core.training.designer_reward import designer_reward
from spade_core.training.errors import TrainingConfigError
from spade_core.training.regret import OBJECTIVES, RegretConfig, estimate_regret
from spade_core.typed_config import ConfigError, load_config
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.pipeline import record_outcome
from spade_registry.records import Status

GOOD = (Path(__file__).parents[1] / "validation" / "corpus" / "good_secret_number.py").read_text()


# -- regret.objective --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("objective", "unhinted", "expected"), [
    ("learnability", [1, 1, 0, 0], 1.0),          # 4 p (1 - p) at p = 1/2
    ("learnability", [1, 1, 1, 1], 0.0),          # solved: nothing to learn
    ("target", [1, 0, 0, 0], 1.0),                # p = alpha = 1/4
    ("target", [1, 1, 1, 1], 0.0),                # |1 - 1/4| / max(1/4, 3/4) = 1
    ("uniform", [1, 0, 0, 0], 0.0),
])
def test_each_objective_rewards_what_it_names(objective: str, unhinted: list[int], expected: float) -> None:
    config = RegretConfig(k=4, objective=objective, target_success=0.25)
    estimate = estimate_regret([1, 1, 1, 1], unhinted, config)
    assert estimate.reward == pytest.approx(expected)
    assert estimate.regret == estimate_regret([1, 1, 1, 1], unhinted, RegretConfig(k=4)).regret  # same estimate


def test_defended_regret_is_the_default_and_keeps_its_gates() -> None:
    assert RegretConfig().objective == "defended" == SelfPlayConfig().regret.objective
    assert RegretConfig().hint_only_arm and not RegretConfig(objective="regret").hint_only_arm
    assert estimate_regret([0, 0], [0, 0], RegretConfig(k=2)).gate == "no_hint_success"
    assert estimate_regret([0, 0], [0, 0], RegretConfig(k=2, objective="regret")).gate == "no_hint_success"
    assert estimate_regret([0, 0], [0, 0], RegretConfig(k=2, objective="learnability")).reward == 0.0
    assert estimate_regret([1, 1], [0, 1], RegretConfig(k=2), valid=False).reward == -1.0
    assert estimate_regret([1, 1], [0, 1], RegretConfig(k=2, objective="uniform"), valid=False).reward == -1.0


def test_uniform_gives_every_designer_completion_the_same_reward() -> None:
    config = RegretConfig(objective="uniform")
    rewards = {designer_reward(accepted=False, status=s, estimate=None, config=config) for s in Status}
    assert rewards == {0.0}
    learn = RegretConfig(objective="learnability")
    assert designer_reward(accepted=False, status=Status.TRIVIAL, estimate=None, config=learn) == 0.0
    assert designer_reward(accepted=False, status=Status.IMPOSSIBLE, estimate=None, config=learn) == 0.0
    assert designer_reward(accepted=False, status=Status.FAILED, estimate=None, config=learn) == -1.0


def test_the_self_play_knobs_reach_the_regret_config() -> None:
    config = load_config(SelfPlayConfig, None, ["regret.objective=target", "regret.target_success=0.3"])
    built = regret_config(config)
    assert (built.objective, built.target_success) == ("target", 0.3)
    assert set(OBJECTIVES) == {"defended", "regret", "learnability", "target", "uniform"}
    with pytest.raises(ConfigError, match="regret.objective: expected one of"):  # when the config is read
        load_config(SelfPlayConfig, None, ["regret.objective=novelty"])
    with pytest.raises(TrainingConfigError, match="objective must be one of"):  # the component checks its own
        RegretConfig(objective="novelty")  # type: ignore[arg-type]


# -- designer.grounding and designer.memory ---------------------------------------------------------------------
@pytest.fixture
def corpus(tmp_path: Path):
    path = tmp_path / "docs.jsonl"
    docs = [{"id": f"d{i}", "title": f"Doc {i}", "text": f"Binary search halves an interval {i} times: one player "
             "picked a number from 100 to 999, the other guesses it."} for i in range(4)]
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    return open_corpus(f"jsonl:{path}")


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(build_tiny_model(tmp_path_factory.mktemp("tiny")))


def _design_once(tmp_path: Path, corpus, tokenizer, *, grounding: bool) -> tuple[list[str], object]:
    seen: list[str] = []

    def act(prompt: str) -> str:
        seen.append(prompt)
        return "```python\n" + GOOD + "```"

    store = open_store(tmp_path / f"store-{grounding}.sqlite3")
    designer = Designer(ScriptedPolicy(tokenizer, act), corpus, store,
                        config=DesignConfig(domain="math", max_repairs=0, max_new_tokens=4096, calibrate=False,
                                            grounding=grounding), validation=ValidationConfig())
    return seen, designer.design(1, documents=[corpus.get("d1")]).candidates[0].final.report


def test_grounding_off_leaves_the_document_out_of_the_prompt_and_the_grounding_stage(
        tmp_path: Path, corpus, tokenizer) -> None:
    grounded_prompts, grounded = _design_once(tmp_path, corpus, tokenizer, grounding=True)
    free_prompts, free = _design_once(tmp_path, corpus, tokenizer, grounding=False)
    assert "Binary search" in grounded_prompts[0] and "grounded on the document" in grounded_prompts[0]
    assert "Binary search" not in free_prompts[0] and "Document (" not in free_prompts[0]
    # the module uses one word of its document: the grounding stage rejects it against the document ...
    assert grounded.failed_stage == "grounding"
    # ... and without a document there is nothing to check it against: the stage is skipped
    grounding_stage = next(s for s in free.stages if s.stage == "grounding")
    assert not grounding_stage.failed and "no grounding document given" in grounding_stage.observed


def test_memory_off_shows_no_neighbours_and_no_failures(tmp_path: Path, corpus, tokenizer) -> None:
    store = open_store(tmp_path / "store.sqlite3")
    sync_seed_environments(store)
    store.add(code="print('x')", manifest={"domain": "math", "name": "Broken"}, status=Status.FAILED,
              failed_stage="policy", provenance={}, report={"message": "import of 'os' is not allowed"})
    memory = EnvironmentMemory(store, embedder=HashingEmbedder())
    policy = ScriptedPolicy(tokenizer, lambda p: "")
    on = Designer(policy, corpus, store, memory=memory, config=DesignConfig(domain="math"))
    off = Designer(policy, corpus, store, memory=memory, config=DesignConfig(domain="math", **MEMORY_OFF))
    with_memory = on.messages_for(corpus.get("d0"))[1]["content"]
    without = off.messages_for(corpus.get("d0"))[1]["content"]
    assert "Environments already in the pool" in with_memory and "Recent failures" in with_memory
    assert "Environments already in the pool" not in without and "Recent failures" not in without
    assert "Binary search" in without  # only the memory left the prompt


# -- agent.hint_placement ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    path = str(tmp_path_factory.mktemp("relay") / "registry.sqlite3")
    store = open_store(path)
    source = module_source(Design(2, 1))
    [report] = validate_many([("relay", source)], store=store, config=ValidationConfig())
    return path, record_outcome(store, source, report).env_id


@pytest.mark.parametrize("placement", HINT_PLACEMENTS)
def test_hint_placement_puts_the_hint_where_it_says(placement: str, relay: tuple[str, str], tiny_generator) -> None:
    path, env_id = relay
    runner = EpisodeRunner(tiny_generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=2),
                                                         hint_placement=placement),
                           make_env=lambda spec: make_env(spec.env_id, store=path))
    [hinted, plain] = runner.run([EpisodeSpec(env_id, 5, hinted=True), EpisodeSpec(env_id, 5)]).trajectories
    text = tiny_generator.tokenizer.decode(hinted.token_ids[:hinted.prompt_length])
    system, _, user = text.partition("<|im_start|>user")
    observation = user.index("relay 2 ")
    hint = "Hint: in the "
    assert hint not in tiny_generator.tokenizer.decode(plain.token_ids[:plain.prompt_length])
    if placement == "system":
        assert hint in system and hint not in user
    elif placement == "before":
        assert hint not in system and user.index(hint) < observation
    else:
        assert hint not in system and user.index(hint) > observation


def test_an_unknown_hint_placement_is_refused() -> None:
    with pytest.raises(RolloutConfigError, match="hint_placement must be one of"):
        RolloutConfig(hint_placement="footer")


# -- designer.enabled=false: the fixed-pool baseline ------------------------------------------------------------
def test_fixed_pool_runs_no_designer_and_trains_only_on_the_chosen_environments(setup: dict[str, Path]) -> None:
    store = open_store(setup["root"] / "pool.sqlite3")
    sync_seed_environments(store)
    pool = sorted(r.env_id for r in store.query(domain="math", status=Status.ACCEPTED) if r.max_turns <= 3)[:1]
    assert pool
    config = load_config(SelfPlayConfig, None, [*overrides(setup, "pool", iterations=1), "designer.enabled=false",
                                                 f"agent.pool_ids={json.dumps(pool)}"])
    SelfPlay(config).run()
    [metrics] = read_metrics(Path(config.run_dir))
    assert metrics.designer.candidates == 0 and metrics.designer.attempts == 0
    assert metrics.agent.envs and set(metrics.agent.envs) == set(pool)
    assert metrics.train.designer is None and metrics.train.agent is not None


def test_pool_tags_select_environments_by_tag(setup: dict[str, Path]) -> None:
    store = open_store(setup["root"] / "tags.sqlite3")
    sync_seed_environments(store)
    tagged = {r.env_id: set(r.manifest.get("tags") or ()) for r in store.query(domain="math", status=Status.ACCEPTED)
              if r.max_turns <= 3}
    tag = sorted({t for tags in tagged.values() for t in tags})[0]
    config = load_config(SelfPlayConfig, None, [*overrides(setup, "tags", iterations=1), "designer.enabled=false",
                                                f"agent.pool_tags=[{tag}]"])
    SelfPlay(config).run()
    [metrics] = read_metrics(Path(config.run_dir))
    assert metrics.agent.envs and all(tag in tagged[e] for e in metrics.agent.envs)
