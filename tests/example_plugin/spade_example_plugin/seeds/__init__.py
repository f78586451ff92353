"""Seed environments of the tally domain, in the designer format."""
