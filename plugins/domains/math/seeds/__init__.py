"""Seed environments of the math domain (designer format: ``ENV_SPEC`` + one plain class)."""
