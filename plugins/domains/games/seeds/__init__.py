"""Seed environments of the games domain (designer format: ``ENV_SPEC`` + one plain class)."""
