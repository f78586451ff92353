"""The TRL trainer backend: TRL's ``GRPOTrainer`` driven by SPADE's episode runner (needs ``trl``; vLLM on GPU).

Settings: :mod:`spade_trainers.trl.config` (torch-free); the trainer: :mod:`spade_trainers.trl.backend` (with its parts: `sequences`, `grpo`, `scoring`, `vllm_colocated`), which
imports trl when a trainer is built. Importing this package imports neither, so plugin discovery stays light.
"""
