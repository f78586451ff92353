"""HFGenerator: exact ids, sampler logprobs, stopping, determinism and weight sync on a tiny real model."""

from __future__ import annotations

import copy

import pytest
import torch

from spade_core.models.base import ModelBackend, SamplingParams
from spade_core.models.distribution import token_logprobs
from spade_core.models.errors import GenerationError, WeightSyncError
from spade_core.models.hf_generator import HFGenerator

CONVERSATIONS = [[{"role": "user", "content": f"Compute {i} + {3 * i}."}] for i in range(5)]


def full_forward_logprobs(model, prompt: list[int], completion: list[int], temperature: float = 1.0) -> torch.Tensor:
    ids = torch.tensor([prompt + completion])
    with torch.no_grad():
        logits = model(ids).logits[0].float() / temperature
    rows = logits[len(prompt) - 1: -1]
    return torch.log_softmax(rows, -1).gather(-1, torch.tensor(completion)[:, None])[:, 0]


def test_is_a_model_backend(tiny_generator: HFGenerator) -> None:
    assert isinstance(tiny_generator, ModelBackend)


def test_logprobs_are_those_of_the_sampled_tokens(tiny_generator: HFGenerator) -> None:
    params = SamplingParams(max_new_tokens=10, temperature=0.7, seed=1)
    for gen in tiny_generator.chat(CONVERSATIONS, params):
        assert len(gen.logprobs) == len(gen.completion_ids) > 0
        expected = full_forward_logprobs(tiny_generator.model, gen.prompt_ids, gen.completion_ids, 0.7)
        assert torch.allclose(torch.tensor(gen.logprobs), expected, atol=1e-4)


def test_prompt_ids_are_returned_exactly_and_chat_uses_the_template(tiny_generator: HFGenerator) -> None:
    gens = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=3, seed=0))
    for conv, gen in zip(CONVERSATIONS, gens):
        assert gen.prompt_ids == tiny_generator.encode_chat(conv)
        assert tiny_generator.tokenizer.decode(gen.prompt_ids).endswith("<|im_start|>assistant\n")


def test_same_seed_same_completions_and_other_seed_differs(tiny_generator: HFGenerator) -> None:
    params = SamplingParams(max_new_tokens=12, seed=7)
    first = [g.completion_ids for g in tiny_generator.chat(CONVERSATIONS, params)]
    again = [g.completion_ids for g in tiny_generator.chat(CONVERSATIONS, params)]
    other = [g.completion_ids for g in tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=12, seed=8))]
    assert first == again
    assert first != other


def test_greedy_batched_equals_one_at_a_time(tiny_generator: HFGenerator) -> None:
    params = SamplingParams(max_new_tokens=8, temperature=0.0)
    batched = [g.completion_ids for g in tiny_generator.chat(CONVERSATIONS, params)]
    single = [tiny_generator.chat([c], params)[0].completion_ids for c in CONVERSATIONS]
    assert batched == single


def test_top_k_one_is_greedy_with_logprob_zero(tiny_generator: HFGenerator) -> None:
    greedy = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=6, temperature=0.0))
    top1 = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=6, temperature=1.0, top_k=1, seed=3))
    nucleus = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=6, top_p=1e-6, seed=4))
    for g, k, p in zip(greedy, top1, nucleus):
        assert g.completion_ids == k.completion_ids == p.completion_ids
        assert all(abs(x) < 1e-6 for x in k.logprobs + p.logprobs)  # the sampling distribution was a point mass


def test_length_limit_and_finish_reason(tiny_generator: HFGenerator) -> None:
    for gen in tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=4, seed=0)):
        eos = gen.completion_ids[-1] in tiny_generator.eos_token_ids
        assert (gen.finish_reason, len(gen.completion_ids) <= 4) == ("stop" if eos else "length", True)


def test_stop_string_cuts_text_but_keeps_ids(tiny_generator: HFGenerator) -> None:
    free = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=40, seed=5))
    stop = next(ch for ch in "e t a o" if ch.strip() and sum(ch in g.text for g in free) >= 2)
    gens = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=40, seed=5, stop=(stop,)))
    stopped = [g for g in gens if g.finish_reason == "stop" and g.completion_ids[-1] not in tiny_generator.eos_token_ids]
    assert stopped, "expected at least one completion to end at the stop string"
    for gen in stopped:
        assert stop not in gen.text
        assert stop in tiny_generator.tokenizer.decode(gen.completion_ids)
        assert len(gen.logprobs) == len(gen.completion_ids)


def test_eos_ends_a_completion_and_is_left_out_of_text(tiny_generator: HFGenerator) -> None:
    eos = tiny_generator.tokenizer.eos_token_id
    model = copy.deepcopy(tiny_generator.model)
    bias = torch.zeros(model.config.vocab_size)
    bias[eos] = 50.0  # EOS becomes (almost surely) the first sampled token
    model.get_output_embeddings().register_forward_hook(lambda module, args, out: out + bias)
    out = HFGenerator(model, tiny_generator.tokenizer).chat(CONVERSATIONS[:2], SamplingParams(max_new_tokens=10, seed=0))
    for g in out:
        assert g.completion_ids == [eos] and g.finish_reason == "stop" and g.text == ""


def test_bad_prompts_fail_alone(tiny_generator: HFGenerator) -> None:
    good = tiny_generator.encode_chat(CONVERSATIONS[0])
    huge = [5] * (tiny_generator.max_positions + 1)
    out = tiny_generator.generate([good, [], [10**6], huge], SamplingParams(max_new_tokens=3, seed=0))
    assert out[0].finish_reason in ("stop", "length") and out[0].completion_ids
    assert [g.finish_reason for g in out[1:]] == ["error"] * 3
    assert "empty" in out[1].error and "vocabulary" in out[2].error and "context" in out[3].error


@pytest.mark.parametrize("params", [SamplingParams(temperature=-1), SamplingParams(top_p=0.0),
                                    SamplingParams(top_k=-2), SamplingParams(stop=("",))])
def test_bad_sampling_params_raise(tiny_generator: HFGenerator, params: SamplingParams) -> None:
    with pytest.raises(GenerationError):
        tiny_generator.generate([[1, 2, 3]], params)


def test_sync_weights_noop_when_shared_and_copies_otherwise(tiny_generator: HFGenerator) -> None:
    shared = tiny_generator.model.state_dict()
    tiny_generator.sync_weights(shared)  # same tensors: nothing to do
    other = HFGenerator(copy.deepcopy(tiny_generator.model), tiny_generator.tokenizer)
    changed = {k: v + 0.5 for k, v in shared.items()}
    other.sync_weights(changed)
    for key, value in other.model.state_dict().items():
        assert torch.equal(value, changed[key])
    with pytest.raises(WeightSyncError, match="not in the generator's model"):
        other.sync_weights({"nonexistent.weight": torch.zeros(1)})
    params = SamplingParams(max_new_tokens=6, temperature=0.0)
    assert [g.completion_ids for g in other.chat(CONVERSATIONS, params)] != [
        g.completion_ids for g in tiny_generator.chat(CONVERSATIONS, params)]


def test_stats_count_calls_and_tokens(tiny_generator: HFGenerator) -> None:
    before = tiny_generator.stats.calls, tiny_generator.stats.completion_tokens
    gens = tiny_generator.chat(CONVERSATIONS, SamplingParams(max_new_tokens=3, seed=0))
    assert tiny_generator.stats.calls == before[0] + 1
    assert tiny_generator.stats.completion_tokens == before[1] + sum(len(g.completion_ids) for g in gens)


SYSTEM = {"role": "system", "content": "You are a careful solver. " * 40}  # ~200 tokens every prompt shares
SHARED = [[SYSTEM, *conv] for conv in CONVERSATIONS]


def test_shared_prompt_prefix_is_computed_once_and_changes_nothing(tiny_generator: HFGenerator) -> None:
    before = tiny_generator.stats.shared_prefix_tokens
    params = SamplingParams(max_new_tokens=10, temperature=0.8, seed=2)
    gens = tiny_generator.chat(SHARED, params)
    assert tiny_generator.stats.shared_prefix_tokens - before >= 200 * (len(SHARED) - 1)
    for gen in gens:  # the sampler's logprobs are those of a plain full forward over prompt + completion
        expected = full_forward_logprobs(tiny_generator.model, gen.prompt_ids, gen.completion_ids, 0.8)
        assert torch.allclose(torch.tensor(gen.logprobs), expected, atol=1e-4)
    greedy = SamplingParams(max_new_tokens=8, temperature=0.0)
    batched = [g.completion_ids for g in tiny_generator.chat(SHARED, greedy)]
    assert batched == [tiny_generator.chat([c], greedy)[0].completion_ids for c in SHARED]


def test_identical_prompts_keep_one_token_of_their_own(tiny_generator: HFGenerator) -> None:
    prompt = tiny_generator.encode_chat(SHARED[0])
    gens = tiny_generator.generate([prompt] * 3, SamplingParams(max_new_tokens=6, temperature=0.0))
    assert gens[0].completion_ids == gens[1].completion_ids == gens[2].completion_ids
    assert gens[0].completion_ids == tiny_generator.generate([prompt], SamplingParams(max_new_tokens=6,
                                                                                      temperature=0.0))[0].completion_ids


def test_cache_growth_past_its_first_capacity_is_exact(tiny_generator: HFGenerator) -> None:
    """Prompts of ~130 tokens (first allocation: 256 positions) decoded well past that, and a 600-token prompt."""
    convs = [[{"role": "user", "content": f"{i} " + "count the apples and the pears " * 6}] for i in range(2)]
    convs.append([{"role": "user", "content": "count the apples and the pears " * 90}])
    gens = tiny_generator.chat(convs, SamplingParams(max_new_tokens=200, temperature=1.0, seed=9))
    assert any(len(g.prompt_ids) < 256 < len(g.prompt_ids) + len(g.completion_ids) for g in gens)
    assert len(gens[2].prompt_ids) > 256
    for gen in gens:
        expected = full_forward_logprobs(tiny_generator.model, gen.prompt_ids, gen.completion_ids)
        assert torch.allclose(torch.tensor(gen.logprobs), expected, atol=1e-4)


def test_models_without_sdpa_decode_through_transformers_own_path(tiny_generator: HFGenerator) -> None:
    from spade_core.models.decoding import fast_decoding, supports_fast_decoding

    model = copy.deepcopy(tiny_generator.model)
    model.config._attn_implementation = "eager"
    assert not supports_fast_decoding(model)
    with fast_decoding(model) as cache:
        assert cache is None and model.config._attn_implementation == "eager"
    eager = HFGenerator(model, tiny_generator.tokenizer)
    params = SamplingParams(max_new_tokens=8, temperature=0.0)
    assert [g.completion_ids for g in eager.chat(SHARED, params)] == [
        g.completion_ids for g in tiny_generator.chat(SHARED, params)]
    assert tiny_generator.model.config._attn_implementation == "sdpa"  # restored after every call


def test_the_plain_decoding_path_gives_the_same_completions(tiny_generator: HFGenerator) -> None:
    plain = HFGenerator(tiny_generator.model, tiny_generator.tokenizer, share_prefix=False, fast_decoding=False)
    params = SamplingParams(max_new_tokens=12, temperature=0.9, seed=4)
    fast = tiny_generator.chat(SHARED, params)
    slow = plain.chat(SHARED, params)
    assert [g.completion_ids for g in fast] == [g.completion_ids for g in slow]
    for a, b in zip(fast, slow):
        assert torch.allclose(torch.tensor(a.logprobs), torch.tensor(b.logprobs), atol=1e-4)


def test_a_prompt_extending_the_last_one_reuses_its_keys_and_values_exactly(tiny_model_dir) -> None:
    """A repair prompt (the attempt's prompt, the attempt, the feedback) starts from the attempt's cache; with the
    weights changed in place in between, nothing is reused."""
    generator = HFGenerator.from_pretrained(tiny_model_dir)
    fresh = HFGenerator(generator.model, generator.tokenizer)
    prompt = generator.encode_chat(SHARED[0])
    first = generator.generate([prompt], SamplingParams(max_new_tokens=12, temperature=0.8, seed=3))[0]
    repair = prompt + first.completion_ids + generator.encode_chat([{"role": "user", "content": "Try again."}])
    params = SamplingParams(max_new_tokens=12, temperature=0.8, top_p=0.9, seed=4)
    before = generator.stats.reused_tokens
    reused = generator.generate([repair], params)[0]
    assert generator.stats.reused_tokens - before >= len(prompt)
    plain = fresh.generate([repair], params)[0]
    assert reused.completion_ids == plain.completion_ids
    assert torch.allclose(torch.tensor(reused.logprobs), torch.tensor(plain.logprobs), atol=1e-5)
    with torch.no_grad():  # and they are the logprobs of a plain full forward under the sampled distribution
        logits = generator.model(torch.tensor([repair + reused.completion_ids])).logits[0, len(repair) - 1:-1]
    expected = token_logprobs(logits, torch.tensor(reused.completion_ids), params.distribution)
    assert torch.allclose(torch.tensor(reused.logprobs), expected, atol=1e-4)
    with torch.no_grad():
        next(generator.model.parameters()).add_(1e-3)  # an in-place change, as an optimiser step makes
    before = generator.stats.reused_tokens
    generator.generate([repair + reused.completion_ids], params)
    assert generator.stats.reused_tokens == before


def test_decode_steps_run_on_decode_threads_and_give_the_same_completions(tiny_generator: HFGenerator) -> None:
    """Decode forwards (one token per row) run on ``decode_threads`` intra-op threads, prefill on torch's setting;
    the completions are those of a generator decoding on torch's setting, and the setting is restored after."""
    model, tokenizer = tiny_generator.model, tiny_generator.tokenizer
    seen: list[tuple[int, int]] = []  # (query tokens per row, intra-op threads) of every forward
    hook = model.register_forward_pre_hook(
        lambda _module, _args, kwargs: seen.append((kwargs["input_ids"].shape[1], torch.get_num_threads())),
        with_kwargs=True)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        params = SamplingParams(max_new_tokens=6, temperature=0.9, seed=5)
        capped = HFGenerator(model, tokenizer, kv_cache_mb=0, decode_threads=1).chat(CONVERSATIONS, params)
        assert torch.get_num_threads() == 2
        assert {threads for width, threads in seen if width == 1} == {1}
        assert {threads for width, threads in seen if width > 1} == {2}
        seen.clear()
        free = HFGenerator(model, tokenizer, kv_cache_mb=0, decode_threads=0).chat(CONVERSATIONS, params)
        assert {threads for _, threads in seen} == {2}
    finally:
        hook.remove()
        torch.set_num_threads(before)
    assert [g.completion_ids for g in capped] == [g.completion_ids for g in free]
    for a, b in zip(capped, free):
        assert torch.allclose(torch.tensor(a.logprobs), torch.tensor(b.logprobs), atol=1e-4)
    with pytest.raises(GenerationError, match="decode_threads must be >= 0"):
        HFGenerator(model, tokenizer, decode_threads=-1)
