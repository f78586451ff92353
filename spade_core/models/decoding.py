"""Fast incremental decoding for :class:`~spade_core.models.hf_generator.HFGenerator` on long prompts.

transformers' default path is O(context) in memory traffic per decoded token twice over: ``DynamicLayer`` appends
with ``torch.cat`` (a copy of the whole cache every step) and, on CPU with a padding mask, SDPA repeats the key and
value heads of a grouped-query model (``repeat_kv``, another copy, ``num_key_value_groups`` times larger). With a
designer prompt of ~4k tokens that is most of the decoding time. Two exact replacements:

- :class:`GrowingKVCache`: a ``DynamicCache`` whose layers write into preallocated buffers that grow geometrically,
  so appending a token writes one position and returns views;
- :func:`grouped_decode_attention`: for single-token queries, folds the query heads of one key/value group into the
  query-length axis, so SDPA reads each cached key/value head once and nothing is copied. Every other call (prefill,
  training) goes to transformers' own SDPA function unchanged.

:func:`fast_decoding` switches a model to both for the duration of a ``with`` block; models it cannot handle
(sliding-window layers, a non-SDPA attention implementation) are left untouched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from transformers.cache_utils import Cache, DynamicCache, DynamicLayer
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

ATTENTION_NAME = "spade_grouped_decode_sdpa"
_MIN_CAPACITY = 256


class GrowingKVLayer(DynamicLayer):
    """A cache layer backed by buffers with spare capacity; ``keys``/``values`` are views of the filled part."""

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        super().lazy_initialization(key_states, value_states)
        self._key_buffer: torch.Tensor | None = None
        self._value_buffer: torch.Tensor | None = None
        self._length = 0

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        new = key_states.shape[-2]
        end = self._length + new
        if self._key_buffer is None or end > self._key_buffer.shape[-2]:
            planned = getattr(self, "capacity", 0)
            self._grow(key_states, value_states, planned if planned >= end else max(_MIN_CAPACITY, 2 * end))
        self._key_buffer[:, :, self._length:end] = key_states
        self._value_buffer[:, :, self._length:end] = value_states
        self._length = end
        self._publish()
        return self.keys, self.values

    def _grow(self, key_states: torch.Tensor, value_states: torch.Tensor, capacity: int) -> None:
        batch, heads, _, dim = key_states.shape
        keys = key_states.new_empty((batch, heads, capacity, dim))
        values = value_states.new_empty((batch, heads, capacity, value_states.shape[-1]))
        if self._length:
            keys[:, :, :self._length] = self.keys
            values[:, :, :self._length] = self.values
        self._key_buffer, self._value_buffer = keys, values

    def _publish(self) -> None:
        self.keys = self._key_buffer[:, :, :self._length]
        self.values = self._value_buffer[:, :, :self._length]

    def get_seq_length(self) -> int:
        return self._length if self.is_initialized else 0

    def crop(self, tokens_to_remove: int) -> None:
        if tokens_to_remove > 0:  # transformers' legacy meaning: the length to keep
            tokens_to_remove = max(0, self._length - tokens_to_remove)
        self._length = max(0, self._length - abs(tokens_to_remove))
        if self._key_buffer is not None:
            self._publish()

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.get_seq_length() > 0:
            self._key_buffer = self._key_buffer.repeat_interleave(repeats, dim=0)
            self._value_buffer = self._value_buffer.repeat_interleave(repeats, dim=0)
            self._publish()

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.get_seq_length() > 0:
            self._key_buffer = _select_rows(self._key_buffer, indices, self._length)
            self._value_buffer = _select_rows(self._value_buffer, indices, self._length)
            self._publish()

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.batch_select_indices(beam_idx)


def _select_rows(buffer: torch.Tensor, indices: torch.Tensor, length: int) -> torch.Tensor:
    """``buffer[indices]``; rows kept in their order (a batch dropping finished rows) move down in place, copying only
    their first ``length`` positions, instead of allocating and filling a new buffer of the whole capacity."""
    rows = indices.tolist()
    if rows != sorted(set(rows)):
        return buffer[indices]
    for new, old in enumerate(rows):
        if new != old:
            buffer[new, :, :length].copy_(buffer[old, :, :length])
    return buffer[:len(rows)]


class GrowingKVCache(DynamicCache):
    """A ``DynamicCache`` of :class:`GrowingKVLayer` (full-attention models only).

    ``capacity`` (the prompt plus the new tokens, when known) sizes the buffers once; they grow only past it."""

    def __init__(self, capacity: int = 0) -> None:
        Cache.__init__(self, layer_class_to_replicate=GrowingKVLayer)
        self.capacity = capacity

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        while len(self.layers) <= layer_idx:
            self.layers.append(GrowingKVLayer())
            self.layers[-1].capacity = self.capacity
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)

    def start_left_padded(self, rows: Sequence[Sequence[tuple[torch.Tensor, torch.Tensor]] | None], width: int) -> None:
        """Start the cache from kept per-sequence states: row ``r`` holds ``rows[r]`` (per layer, keys and values of
        shape ``[kv_heads, length, head_dim]``) right-aligned in the first ``width`` positions, zeros before them (a
        ``None`` row holds nothing). At least one row must hold states; the attention mask must hide the zeros."""
        template = next(states for states in rows if states)
        capacity = max(self.capacity, width)
        self.layers = []
        for index, (key0, value0) in enumerate(template):
            # only the gaps before each row's states are zeroed (a masked position's value still enters the
            # weighted sum, with weight 0); positions past ``width`` are written before they are read
            keys = key0.new_empty((len(rows), key0.shape[0], capacity, key0.shape[-1]))
            values = value0.new_empty((len(rows), value0.shape[0], capacity, value0.shape[-1]))
            for row, states in enumerate(rows):
                key, value = states[index] if states else (key0[:, :0], value0[:, :0])
                start = width - key.shape[-2]
                keys[row, :, :start] = 0
                values[row, :, :start] = 0
                keys[row, :, start:width] = key
                values[row, :, start:width] = value
            layer = GrowingKVLayer()
            layer.capacity = self.capacity
            layer.lazy_initialization(key0, value0)
            layer._key_buffer, layer._value_buffer, layer._length = keys, values, width
            layer._publish()
            self.layers.append(layer)

    def row_states(self, row: int, positions: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Copies of one row's keys and values at ``positions`` (per layer, ``[kv_heads, len(positions), head_dim]``)."""
        return [(layer.keys[row][:, positions], layer.values[row][:, positions]) for layer in self.layers]


class ContextLayer(DynamicLayer):
    """A cache layer that, once frozen, holds a fixed context: ``update`` returns the context followed by the new
    states without storing them, so one context serves any number of forwards (and checkpointed recomputation)."""

    frozen = False

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.frozen:
            return super().update(key_states, value_states, *args, **kwargs)
        return torch.cat([self.keys, key_states], dim=-2), torch.cat([self.values, value_states], dim=-2)


class ContextCache(DynamicCache):
    """The keys and values of a context (a prompt) computed once without gradient, read by later forwards.

    Fill it with one forward (``past_key_values=cache``), then :meth:`freeze`; :meth:`prefix` and :meth:`expand`
    return new caches over views of the same tensors (a shared prefix, a batch of rows), never copies."""

    def __init__(self) -> None:
        Cache.__init__(self, layer_class_to_replicate=ContextLayer)

    def freeze(self) -> ContextCache:
        for layer in self.layers:
            layer.frozen = True
        return self

    def _derived(self, view: Any) -> ContextCache:
        out = ContextCache()
        out.layers = []
        for layer in self.layers:
            copy = ContextLayer()
            copy.lazy_initialization(layer.keys, layer.values)
            copy.keys, copy.values = view(layer.keys), view(layer.values)
            out.layers.append(copy)
        return out

    def prefix(self, length: int) -> ContextCache:
        """An unfrozen cache of the first ``length`` positions (extend it with a forward, then freeze)."""
        return self._derived(lambda t: t[:, :, :length])

    def expand(self, rows: int) -> ContextCache:
        """The same context for ``rows`` batch rows (views)."""
        return self._derived(lambda t: t.expand(rows, *t.shape[1:]))


def grouped_decode_attention(module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                             attention_mask: torch.Tensor | None, dropout: float = 0.0, scaling: float | None = None,
                             is_causal: bool | None = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """SDPA that, for one query token, attends each key/value head with its group of query heads at once."""
    groups = getattr(module, "num_key_value_groups", 1)
    if query.shape[2] != 1 or groups == 1 or module.training or kwargs.get("position_bias") is not None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    batch, heads, _, dim = query.shape
    # query head h uses key/value head h // groups (transformers' repeat_kv order), so this grouping is exact
    grouped = query.reshape(batch, key.shape[1], groups, dim)
    mask = attention_mask[:, :, :, : key.shape[-2]] if attention_mask is not None else None
    out = torch.nn.functional.scaled_dot_product_attention(grouped, key, value, attn_mask=mask, scale=scaling)
    return out.reshape(batch, heads, 1, value.shape[-1]).transpose(1, 2).contiguous(), None


ALL_ATTENTION_FUNCTIONS.register(ATTENTION_NAME, grouped_decode_attention)
ALL_MASK_ATTENTION_FUNCTIONS.register(ATTENTION_NAME, sdpa_mask)


def supports_fast_decoding(model: Any) -> bool:
    """True for models with only full-attention layers that run transformers' SDPA attention."""
    config = getattr(model, "config", None)
    if config is None or getattr(config, "_attn_implementation", None) != "sdpa":
        return False
    text = config.get_text_config(decoder=True) if hasattr(config, "get_text_config") else config
    if getattr(text, "sliding_window", None) and getattr(text, "use_sliding_window", True):
        return False
    layer_types = getattr(text, "layer_types", None)
    return not layer_types or all(t == "full_attention" for t in layer_types)


@contextlib.contextmanager
def intra_op_threads(count: int, device: torch.device) -> Iterator[None]:
    """Within the block torch runs on at most ``count`` intra-op threads (``0``, a count at or above the current
    one, or a non-CPU device: unchanged). The setting is process-wide; it is restored on leaving."""
    current = torch.get_num_threads()
    if device.type != "cpu" or count <= 0 or count >= current:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(current)


@contextlib.contextmanager
def fast_decoding(model: Any, capacity: int = 0) -> Iterator[Cache | None]:
    """Within the block the model uses :func:`grouped_decode_attention`; yields a fresh :class:`GrowingKVCache`
    sized for ``capacity`` positions, or ``None`` (and changes nothing) when the model is not supported."""
    if not supports_fast_decoding(model):
        yield None
        return
    config = model.config
    original = config._attn_implementation
    config._attn_implementation = ATTENTION_NAME
    try:
        yield GrowingKVCache(capacity)
    finally:
        config._attn_implementation = original
