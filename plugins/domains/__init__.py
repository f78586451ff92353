"""Bundled SPADE domain plugins (imported as ``spade_domains``), each discovered through the ``spade`` entry point."""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())  # this package's logger: silent until an app configures logging
