#!/usr/bin/env bash
# scripts/gpu_check.sh: the CUDA checks for a machine with an NVIDIA GPU and no network, in one run:
# builds in place with the Python that has torch (nanobind and scikit-build-core installed), runs the C++
# CUDA runtime tests on the device, the GPU benchmarks (benchmarks/bench_gpu.py) and the Python suites with
# QD_TEST_ARCH=cuda in parallel. Logs go to $OUT (default gpu_out/), one file per step.
#
# Optional inputs: GTEST_PREFIX, a GoogleTest install (include/, lib/.../cmake/GTest) for the C++ tests;
# WHEELS, a folder of wheels to install first (array-api-compat where it is missing); PYTEST_ARGS, in place
# of the whole suite; PYTEST_BUDGET, seconds for the suites (default 240).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu_out}
mkdir -p "$OUT"
PY=${PY:-python3}
JOBS=$(nproc)
step() { echo "== $1 ($(date +%T)) =="; }

step "device" | tee "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$OUT/summary.txt"
$PY -c "import torch; print('torch', torch.__version__, torch.version.cuda)" | tee -a "$OUT/summary.txt"

if [ -n "${WHEELS:-}" ]; then
  $PY -m pip install -q --no-index --no-deps "$WHEELS"/*.whl
fi

step "build" | tee -a "$OUT/summary.txt"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL=$JOBS $PY -m pip install -q --no-build-isolation --no-deps -e . >"$OUT/build.log" 2>&1 \
  || { echo "python build failed"; tail -40 "$OUT/build.log"; exit 1; }
echo "python package built in $((SECONDS - start)) s" | tee -a "$OUT/summary.txt"
$PY -c "import quadrants.runtime._core as c; print('cuda_status:', repr(c.cuda_status()), 'nvrtc:', c.nvrtc_available())" \
  | tee -a "$OUT/summary.txt"

if [ -n "${GTEST_PREFIX:-}" ]; then
  step "C++ tests (the Cuda* ones on the device)" | tee -a "$OUT/summary.txt"
  gtest_dir=$(dirname "$(find "$GTEST_PREFIX" -name GTestConfig.cmake | head -1)")
  { cmake -S . -B build/gpu-cpp -DQD_BUILD_TESTS=ON -DQD_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
      -DGTest_DIR="$gtest_dir" && cmake --build build/gpu-cpp -j "$JOBS" --target qd_cpp_tests \
      && timeout 120 build/gpu-cpp/qd_cpp_tests; } >"$OUT/ctest.log" 2>&1
  echo "exit $?" >>"$OUT/ctest.log"
  grep -E "^\[  (PASSED|FAILED) |tests? ran|^exit|FAILED  \]" "$OUT/ctest.log" | tee -a "$OUT/summary.txt"
fi

step "GPU benchmarks" | tee -a "$OUT/summary.txt"
timeout 90 $PY benchmarks/bench_gpu.py 2>&1 | tee "$OUT/bench.log" | tee -a "$OUT/summary.txt"

step "Python suites on CUDA" | tee -a "$OUT/summary.txt"
export QD_TEST_ARCH=cuda QD_CACHE_DIR
QD_CACHE_DIR=$(mktemp -d)
# shellcheck disable=SC2086
# -v: each outcome is logged as it comes; SIGINT at the budget still prints the failures seen so far.
timeout -s INT -k 30 "${PYTEST_BUDGET:-240}" $PY -m pytest -v -n "$JOBS" -p no:cacheprovider --timeout 90 -rfE --tb=short \
  -W ignore::RuntimeWarning ${PYTEST_ARGS:-tests/python} >"$OUT/pytest.log" 2>&1
echo "pytest exit $?" >>"$OUT/pytest.log"
grep -E "^(FAILED|ERROR) |[0-9]+ (passed|failed)|pytest exit" "$OUT/pytest.log" | tail -120 | tee -a "$OUT/summary.txt"
