#!/usr/bin/env bash
# scripts/run_tests.sh: sets everything up, then runs every test: C++ (ctest) and Python (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== C++ tests (ctest) =="
ctest --test-dir build/cpp --output-on-failure -j "$(nproc)"
echo "== Python tests (pytest) =="
.venv/bin/python -m pytest -q tests/python "$@"
