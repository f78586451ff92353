"""Seed environments of the code domain (designer format: ``ENV_SPEC`` + one plain class)."""
