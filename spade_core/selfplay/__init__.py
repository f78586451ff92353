"""The self-play loop: one policy designs environments and learns to act in them, trained on regret and reward."""
