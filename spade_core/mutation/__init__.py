"""Mutants of environment modules (:mod:`.operators`) and the differential oracle that keeps the ones observably
worse than their original (:mod:`.oracle`): the gate's mutation score is measured on them
(``benchmarks/bench_gate_mutants.py``)."""
