#!/usr/bin/env bash
# scripts/run_tests.sh: sets everything up, then runs every test: C++ (ctest) and Python (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== C++ tests (ctest) =="
ctest --test-dir build/cpp --output-on-failure -j "$(nproc)"
echo "== Python tests (pytest) =="
# Every kernel the tests compile is also compiled for CUDA with NVRTC, where NVRTC is installed.
QD_CHECK_CUDA=$(.venv/bin/python -c "import quadrants._core as c; print(int(c.nvrtc_available()))")
export QD_CHECK_CUDA
echo "CUDA code generation compile-checked with NVRTC: $([ "$QD_CHECK_CUDA" = 1 ] && echo yes || echo no)"
.venv/bin/python -m pytest -q tests/python "$@"
