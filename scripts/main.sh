#!/usr/bin/env bash
# Install everything SPADE needs, then run the main job on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e .
spade plugins
spade list
spade play spade/TicTacToe-v0 --auto --seed 0
spade play spade/ArithmeticChain-v0 --auto --hint --seed 0
