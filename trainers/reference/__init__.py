"""The reference trainer backend: pure PyTorch + transformers (CPU in tests, bf16 autocast on GPU).

Settings: :mod:`spade_trainers.reference.config` (torch-free); the trainer: :mod:`spade_trainers.reference.backend`
(imports torch when a trainer is built). Importing this package imports neither, so plugin discovery stays light.
"""
