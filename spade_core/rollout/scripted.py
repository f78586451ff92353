"""``ScriptedPolicy``: a deterministic :class:`ModelBackend` whose reply is a Python function of the prompt text.

Baselines and probes need policies that are not language models: "always copy the hint", "play the first free
cell", "answer correctly only when hinted". Wrapping such a function as a model backend lets them run through the
very same episode runner, chat template and trajectories as the policy model. The reply is tokenised and ended
with the EOS token; logprobs are 0.0 (a deterministic policy gives its action probability 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spade_core.models.base import Generation, SamplingParams


class ScriptedPolicy:
    """Replies ``act(prompt_text)`` to every prompt; an exception in ``act`` yields an error generation."""

    name = "scripted"

    def __init__(self, tokenizer: Any, act: Callable[[str], str]) -> None:
        self.tokenizer = tokenizer
        self.act = act
        self.calls = 0

    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        self.calls += 1
        out = []
        for prompt in prompts:
            ids = [int(t) for t in prompt]
            try:
                reply = self.act(self.tokenizer.decode(ids, skip_special_tokens=False))
            except Exception as exc:  # a failing script fails this prompt only
                out.append(Generation(ids, [], "", [], finish_reason="error", error=f"{type(exc).__name__}: {exc}"))
                continue
            for stop in params.stop:
                if stop in reply:
                    reply = reply[: reply.index(stop)]
            completion = [int(t) for t in self.tokenizer.encode(reply, add_special_tokens=False)]
            finish = "stop"
            if self.tokenizer.eos_token_id is not None:
                completion.append(int(self.tokenizer.eos_token_id))
            if len(completion) > params.max_new_tokens:
                completion, finish = completion[: params.max_new_tokens], "length"
                reply = self.tokenizer.decode(completion, skip_special_tokens=True)
            out.append(Generation(ids, completion, reply, [0.0] * len(completion), finish_reason=finish))
        return out

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        prompts = [self.tokenizer.apply_chat_template(list(c), add_generation_prompt=True, tokenize=True,
                                                      return_dict=False) for c in conversations]
        return self.generate(prompts, params)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Nothing to sync: the policy is code."""
