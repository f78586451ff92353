"""Bundled SPADE tool plugins (imported as ``spade_tools``): tools that tool-use environments call by name."""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())  # this package's logger: silent until an app configures logging
