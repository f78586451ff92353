"""The TRL trainer backend: TRL's ``GRPOTrainer`` driven by SPADE's episode runner (needs ``trl``; vLLM on GPU).

Importing this package imports neither trl nor vllm; :mod:`spade_trainers.trl.backend` imports trl when a trainer
is built.
"""

from spade_trainers.trl.config import TRLTrainerConfig

__all__ = ["TRLTrainerConfig"]
