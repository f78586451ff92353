"""Build a tiny, real causal LM on the spot: a locally trained BPE tokenizer plus a random 2-layer Llama.

Tests and smoke runs need a real transformers model and tokenizer (with a chat template) but no downloads; this
one trains a byte-level BPE on a small built-in text and saves a complete ``save_pretrained`` directory that any
``AutoModelForCausalLM`` / ``AutoTokenizer`` code loads like a hub model.
"""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<pad>"]
_TRAINING_TEXT = """
You are player 0 (X). Board (numbers are free cells): 1 | 2 | 3. Reply with the number of the cell to mark.
Compute (((61 * 43) + 10) + 90). Give the final answer as \\boxed{N}. Correct. Incorrect: 12 is not the value.
def add(a, b):\n    return a + b\n```python\nimport re\n```\nENV_SPEC = {"name": "Env", "domain": "math"}
class Env:\n    def reset(self, rng, options):\n        return "obs", {}\n    def step(self, action):
{"name": "transfer", "arguments": {"amount": 10, "to": "savings"}} The quick brown fox jumps over the lazy dog.
0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 + - * / = ( ) [ ] { } < > : ; , . ? ! ' " H T yes no
"""


def build_tiny_model(directory: str | Path, *, vocab_size: int = 512, hidden_size: int = 64, layers: int = 2,
                     seed: int = 0, text: str | None = None) -> Path:
    """Write a tiny random Llama + BPE tokenizer to ``directory`` (reused if already there); return the path.
    ``text`` replaces the built-in text the BPE is trained on (its frequent words become single tokens)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = Path(directory)
    if (path / "config.json").exists() and (path / "tokenizer.json").exists():
        return path
    path.mkdir(parents=True, exist_ok=True)

    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator([text or _TRAINING_TEXT] * 4, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", bos_token="<|endoftext|>", pad_token="<pad>",
        unk_token="<|endoftext|>",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(path)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=hidden_size * 2,
        num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    LlamaForCausalLM(config).save_pretrained(path)
    return path
