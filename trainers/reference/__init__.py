"""The reference trainer backend: pure PyTorch + transformers (CPU in tests, bf16 autocast on GPU)."""

from spade_trainers.reference.config import LoraSettings, ReferenceTrainerConfig

__all__ = ["LoraSettings", "ReferenceTrainerConfig"]
