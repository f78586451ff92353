"""Bundled SPADE domain plugins (imported as ``spade_domains``), each discovered through the ``spade`` entry point."""
