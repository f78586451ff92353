"""The small world: SPADE's whole loop at a size that runs in minutes on two CPU cores, with an environment family
whose regret landscape is known in advance (``benchmarks/bench_small_world.py``; README, "The small world")."""
