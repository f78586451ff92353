"""The math domain: answer extraction and checking, designer guidance, seed environments."""
