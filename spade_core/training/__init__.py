"""Training layer shared by all trainer backends: advantages, regret, and the backend interface (docs/design.md §5-6).

Nothing here imports torch; backends (``spade_trainers.*``) do.
"""

from spade_core.training.advantages import (
    AdvantageConfig,
    AdvantageEstimator,
    EMABaseline,
    dr_grpo_advantages,
    group_key,
    grpo_advantages,
)
from spade_core.training.backend import TrainerBackend
from spade_core.training.errors import (
    CheckpointError,
    TrainingConfigError,
    TrainingError,
    TrainingInputError,
    UnknownTrainerBackendError,
)
from spade_core.training.regret import (
    RegretConfig,
    RegretEstimate,
    RegretEstimator,
    estimate_regret,
    paired_specs,
    regret_from_trajectories,
)

__all__ = [
    "AdvantageConfig", "AdvantageEstimator", "CheckpointError", "EMABaseline", "RegretConfig", "RegretEstimate",
    "RegretEstimator", "TrainerBackend", "TrainingConfigError", "TrainingError", "TrainingInputError",
    "UnknownTrainerBackendError", "dr_grpo_advantages", "estimate_regret", "group_key",
    "grpo_advantages", "paired_specs", "regret_from_trajectories",
]
