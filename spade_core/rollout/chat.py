"""Token-exact multi-turn chat formatting.

Re-tokenising a whole conversation every turn can change earlier tokens (BPE merges across message boundaries,
templates that rewrite history), and then the trainer would score tokens the sampler never produced. Instead the
conversation's token ids only ever grow: the first prompt is the chat template applied once; each later turn
appends the ids of the *text the template adds* after the assistant's reply (its closing tokens, the new user
message, the generation prompt). That text is the difference between two renders of the same history, with a
sentinel standing in for the assistant's reply so templates that trim or rewrite the reply do not break it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spade_core.rollout.errors import ChatTemplateError

_SENTINEL = "\u2063SPADE-REPLY\u2063"


class ChatFormatter:
    """Renders first prompts and per-turn continuations with one tokenizer's chat template."""

    def __init__(self, tokenizer: Any) -> None:
        if not getattr(tokenizer, "chat_template", None):
            raise ChatTemplateError(
                "the tokenizer has no chat_template; set tokenizer.chat_template (e.g. a ChatML template) "
                "before running episodes"
            )
        self.tokenizer = tokenizer
        self._special_ids = {int(i) for i in getattr(tokenizer, "all_special_ids", [])}

    def render(self, messages: Sequence[dict[str, str]], *, add_generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=add_generation_prompt, tokenize=False
        )

    def first_prompt(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """Token ids of the opening conversation, ending with the assistant generation prompt."""
        ids = self.tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=True, tokenize=True, return_dict=False
        )
        return [int(t) for t in ids]

    def continuation(self, history: Sequence[dict[str, str]], last_completion_ids: Sequence[int],
                     message: dict[str, str]) -> list[int]:
        """Ids to append after the assistant's last reply so that ``message`` follows and the model may answer.

        ``history`` ends with the assistant message just generated. If the reply ended with a special token that
        the template would write anyway (ChatML's ``<|im_end|>``), it is not repeated.
        """
        if not history or history[-1].get("role") != "assistant":
            raise ChatTemplateError("continuation() needs a history that ends with the assistant's reply")
        with_sentinel = [*history[:-1], {"role": "assistant", "content": _SENTINEL}]
        before = self.render(with_sentinel, add_generation_prompt=False)
        after = self.render([*with_sentinel, message], add_generation_prompt=True)
        if not after.startswith(before):
            raise ChatTemplateError(
                "the chat template is not prefix-stable: rendering the conversation with one more message changes "
                "the text of earlier messages, so turns cannot be appended token-exactly. Use a template that only "
                "appends (ChatML-style), or run single-turn environments with this model"
            )
        at = before.rfind(_SENTINEL)
        if at < 0:
            raise ChatTemplateError("the chat template drops the assistant's reply from the history; use one that keeps it")
        closing = before[at + len(_SENTINEL):]
        if last_completion_ids:
            last = int(last_completion_ids[-1])
            if last in self._special_ids:
                token_text = self.tokenizer.convert_ids_to_tokens(last)
                if token_text and closing.startswith(token_text):
                    closing = closing[len(token_text):]
        text = closing + after[len(before):]
        return [int(t) for t in self.tokenizer.encode(text, add_special_tokens=False)]
