"""Write a tiny, real GGUF file (float32 Llama + byte-level BPE tokenizer) so GGUF loading is tested in seconds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from spade_core.models.tiny import CHAT_TEMPLATE, build_tiny_model


def build_tiny_gguf(path: Path, *, seed: int = 0) -> Path:
    """A 2-layer, 64-wide Llama with the tiny model's tokenizer, as an F32 GGUF file at ``path``."""
    import gguf

    if path.exists():
        return path
    tok_dir = build_tiny_model(path.parent / f"{path.stem}-hf")
    spec = json.loads((tok_dir / "tokenizer.json").read_text())
    vocab = spec["model"]["vocab"]
    added = {t["content"]: t["id"] for t in spec.get("added_tokens", [])}
    size = max([*vocab.values(), *added.values()]) + 1
    tokens = [""] * size
    for token, idx in {**vocab, **added}.items():
        tokens[idx] = token
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]
    types = [3 if t in added else 1 for t in tokens]

    hidden, ffn, layers, heads, kv_heads = 64, 128, 2, 4, 2
    head_dim = hidden // heads
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(layers)
    writer.add_context_length(512)
    writer.add_embedding_length(hidden)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(size)
    writer.add_rope_dimension_count(head_dim)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(added["<|endoftext|>"])
    writer.add_eos_token_id(added["<|im_end|>"])
    writer.add_pad_token_id(added["<pad>"])
    writer.add_chat_template(CHAT_TEMPLATE)
    writer.add_tensor("token_embd.weight", weight(size, hidden))
    for i in range(layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(hidden, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(hidden, hidden))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(kv_heads * head_dim, hidden))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(kv_heads * head_dim, hidden))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weight(hidden, hidden))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(hidden, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(ffn, hidden))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(ffn, hidden))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(hidden, ffn))
    writer.add_tensor("output_norm.weight", np.ones(hidden, dtype=np.float32))
    writer.add_tensor("output.weight", weight(size, hidden))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
