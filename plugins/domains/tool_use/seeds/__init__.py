"""Seed environments of the tool-use domain (designer format: ``ENV_SPEC`` + one plain class)."""
