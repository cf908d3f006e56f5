#!/usr/bin/env bash
# scripts/run_tests.sh: sets everything up, then runs every test: C++ (ctest) and Python (pytest), and
# the kernel suites again on CUDA: on the GPU when there is one, else on the driver emulation; a full
# run also builds the wheel and sdist (scripts/build_wheel.sh), installs the wheel into a fresh venv
# without build tools and runs kernels from it (scripts/check_wheel.sh), does the same for CPython 3.13
# (scripts/wheel_matrix.sh cp313), and runs the sanitizers (scripts/sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== C++ tests (ctest) =="
ctest --test-dir build/cpp --output-on-failure -j "$(nproc)"
echo "== Python tests (pytest) =="
# Every kernel the tests compile is also compiled for CUDA with NVRTC, where NVRTC is installed.
QD_CHECK_CUDA=$(.venv/bin/python -c "import quadrants.runtime._core as c; print(int(c.nvrtc_available()))")
echo "CUDA code generation compile-checked with NVRTC: $([ "$QD_CHECK_CUDA" = 1 ] && echo yes || echo no)"
QD_CHECK_CUDA=$QD_CHECK_CUDA .venv/bin/python -m pytest -q tests/python "$@"

# A full run also proves that the package installs and runs on its own: the sdist, a wheel built from
# it and repaired to a manylinux tag, installed into a fresh venv with no build tools, kernels on numpy
# and torch, then reloaded from the disk cache with no compiler (about 2.5 minutes on 2 cores, about
# what `pip install .` alone took); then the same for a cp313 wheel (scripts/wheel_matrix.sh cp313: this
# machine's Python 3.13, else one from a Debian 13 root; about 3 more minutes). Runs with pytest
# arguments skip them. The older-glibc wheel (manylinux_2_31) has its own script: scripts/wheel_matrix.sh.
# It also runs the C++ tests under ASan + UBSan and the kernel suites with UBSan-instrumented
# kernels (scripts/sanitizers.sh, about three minutes).
if [ $# -eq 0 ]; then
  echo "== Wheel: built, then installed into a new venv and run =="
  bash scripts/build_wheel.sh
  bash scripts/check_wheel.sh
  bash scripts/wheel_matrix.sh cp313
  bash scripts/sanitizers.sh
else
  echo "== Fresh install and sanitizer checks skipped (pytest arguments given) =="
fi

# QD_TEST_ARCH=cuda makes qd.init() for the CPU pick CUDA; host-only tests (marked cpu_only) skip.
export QD_TEST_ARCH=cuda
if [ -z "$(.venv/bin/python -c "import quadrants.runtime._core as c; print(c.cuda_status())")" ]; then
  echo "== Python tests on the GPU =="
  .venv/bin/python -m pytest -q -W ignore::RuntimeWarning tests/python "$@"
else
  # No GPU: the same suites run on tests/cuda_emulator/, a CPU stand-in for libcuda and NVRTC that
  # checks how we drive them (device memory is unreadable from the host, copies check directions).
  echo "== Python tests on the CUDA driver emulation (no GPU here) =="
  export QD_CUDA_DRIVER_PATH=$PWD/build/cpp/cuda_emulator/libqd_emulated_driver.so
  export QD_NVRTC_PATH=$PWD/build/cpp/cuda_emulator/libqd_emulated_nvrtc.so
  QD_CACHE_DIR=$(mktemp -d)
  export QD_CACHE_DIR
  trap 'rm -rf "$QD_CACHE_DIR"' EXIT
  # test_cuda_codegen.py checks real NVRTC output, which the emulation does not make.
  .venv/bin/python -m pytest -q -W ignore::RuntimeWarning --ignore=tests/python/test_cuda_codegen.py tests/python "$@"
fi
