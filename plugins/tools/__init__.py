"""Bundled SPADE tool plugins (imported as ``spade_tools``): tools that tool-use environments call by name."""
