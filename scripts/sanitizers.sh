#!/usr/bin/env bash
# scripts/sanitizers.sh: the C++ core and its tests under AddressSanitizer + UndefinedBehaviorSanitizer,
# then the kernel suites with UBSan-instrumented kernels. Any report fails the run (no recovery).
# Needs the setup of scripts/setup.sh (.venv, GoogleTest). Every UB check is on for kernels too,
# signed integer overflow included: integer arithmetic wraps by definition (docs/IR.md).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo "== C++ core and tests with ASan + UBSan (build/sanitize) =="
cmake -S . -B build/sanitize -DQD_BUILD_TESTS=ON -DQD_BUILD_PYTHON=OFF -DQD_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" >/dev/null
cmake --build build/sanitize -j "$JOBS" 2>&1 | { grep -vE "^\[ *[0-9]+%\]|^-- " || true; }
# Left out: the CUDA emulation, which maps device memory PROT_NONE and catches the faults (ASan cannot
# share them), and real NVRTC, a closed library that fails with BUILTIN_OPERATION_FAILURE inside an
# ASan process; both run in the plain ctest.
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build/sanitize --output-on-failure -j "$JOBS" -E "emulation|^Nvrtc\."

echo "== Kernel suites with UBSan-instrumented kernels =="
QD_CACHE_DIR=$(mktemp -d)
export QD_CACHE_DIR
trap 'rm -rf "$QD_CACHE_DIR"' EXIT
CXX="${CXX:-c++} -fsanitize=undefined -fno-sanitize-recover=undefined" \
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/python/test_kernel_differential.py \
  tests/python/test_defined_semantics.py tests/python/test_int_wrap.py tests/python/test_kernel_language.py \
  tests/python/test_kernel_language_extras.py \
  tests/python/test_random.py tests/python/test_large_arrays.py -k "not past_2_31 and not more_than_2_31"
