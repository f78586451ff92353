"""The games domain: single-player puzzles and two-player zero-sum games for self-play."""
