"""SPADE trainer backends (imported as ``spade_trainers``): the reference PyTorch backend and GPU backends."""
