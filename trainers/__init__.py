"""SPADE trainer backends (imported as ``spade_trainers``): the reference PyTorch backend and GPU backends."""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())  # this package's logger: silent until an app configures logging
