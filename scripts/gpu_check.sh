#!/usr/bin/env bash
# SPADE's GPU check (<= 5 minutes, one table): HFGenerator tokens/s against transformers' generate, one
# reference-trainer update in bf16 autocast with its ratio check, and MFU, on a random-weight Qwen2-shaped model
# (0.5B by default; extra arguments go to scripts/gpu_check.py, e.g. --shape 1.5b).
#
# Installs nothing from the network: it uses the machine's torch and transformers, installs SPADE itself (pip
# --no-deps --no-index: the wheel scripts/gpu_wheels.sh built of this checkout, else the checkout) and, for any other
# module that is missing, the wheels in build/gpu-wheels. Prepare that folder with scripts/gpu_wheels.sh where PyPI
# is reachable (about 3 MB) and carry it along.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1
wheels="${SPADE_GPU_WHEELS:-build/gpu-wheels}"
python -c "import torch, transformers; print('torch', torch.__version__, '| transformers', transformers.__version__,
'| CUDA', torch.cuda.is_available())"
missing=$(python - <<'PY'
import importlib.util
needed = {"gymnasium": "gymnasium", "cloudpickle": "cloudpickle", "farama_notifications": "farama_notifications",
          "platformdirs": "platformdirs", "pluggy": "pluggy", "RestrictedPython": "restrictedpython",
          "tabulate": "tabulate", "wcwidth": "wcwidth", "click": "click", "rich": "rich",
          "markdown_it": "markdown_it_py", "mdurl": "mdurl", "pygments": "pygments",
          "typing_extensions": "typing_extensions"}
print(" ".join(dist for module, dist in needed.items() if importlib.util.find_spec(module) is None))
PY
)
if [ -n "$missing" ]; then
    if [ ! -d "$wheels" ]; then
        echo "missing modules ($missing) and no wheel folder $wheels: run scripts/gpu_wheels.sh where PyPI is" \
             "reachable and carry $wheels along" >&2
        exit 2
    fi
    echo "installing from $wheels: $missing"
    python -m pip install --quiet --no-deps --no-index --find-links "$wheels" $missing
fi
spade_wheel=$(ls "$wheels"/spade_rl-*.whl 2>/dev/null | head -1 || true)
if [ -n "$spade_wheel" ]; then  # this checkout, built by scripts/gpu_wheels.sh
    python -m pip install --quiet --no-deps --no-index --force-reinstall "$spade_wheel"
else
    python -m pip install --quiet --no-deps --no-index --no-build-isolation .
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
export SPADE_STORE="${SPADE_STORE:-$(mktemp -d)/registry.sqlite3}"
mkdir -p runs
python scripts/gpu_check.py --json runs/gpu-check.json "$@"
