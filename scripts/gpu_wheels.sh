#!/usr/bin/env bash
# Build SPADE's wheel from this checkout and fetch the small pure-Python wheels that scripts/gpu_check.sh may need on a GPU machine without network
# (torch and transformers, and what they depend on, are expected to be there already) into build/gpu-wheels,
# at the versions installed here. Run it on a machine with PyPI access, then carry build/gpu-wheels along.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/gpu-wheels}"
mkdir -p "$out"
# import name -> distribution: what `import spade_core` and the check's imports need beyond torch/transformers
dists=$(python - <<'PY'
from importlib.metadata import version
names = ["gymnasium", "cloudpickle", "farama-notifications", "platformdirs", "pluggy", "restrictedpython", "tabulate",
         "wcwidth", "click", "rich", "markdown-it-py", "mdurl", "pygments", "typing-extensions"]
print(" ".join(f"{n}=={version(n)}" for n in names))
PY
)
python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 --platform any \
    --implementation py --dest "$out" $dists
# SPADE itself as a wheel of this checkout, so the GPU machine needs no build backend
rm -f "$out"/spade_rl-*.whl
python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$out" .
du -sh "$out"
ls "$out"
