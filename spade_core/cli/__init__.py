"""The ``spade`` command line."""
