"""Held-out benchmarks as SPADE environments: BFCL v4 multi-turn, reasoning-gym, local JSONL math sets."""
