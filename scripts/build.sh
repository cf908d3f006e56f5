#!/usr/bin/env bash
# scripts/build.sh: builds the C++ core and its tests (build/cpp) and installs the Python package
# into .venv in editable mode. A lock in build/ keeps concurrent builds in one tree from colliding (other
# checkouts build in their own build/ and do not wait).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
exec 9>build/.build.lock
flock 9
JOBS=$(nproc)
cmake -S . -B build/cpp -DQD_BUILD_TESTS=ON -DQD_BUILD_PYTHON=OFF -DQD_WERROR=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/cpp -j "$JOBS" 2>&1 | { grep -vE "^\[ *[0-9]+%\]|^-- " || true; }
CMAKE_BUILD_PARALLEL_LEVEL=$JOBS .venv/bin/python -m pip install -q --no-build-isolation --no-deps \
  -C cmake.define.QD_WERROR=ON -e . 2>&1 \
  | { grep -v "^WARNING: Location" || true; }
