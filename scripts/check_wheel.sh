#!/usr/bin/env bash
# scripts/check_wheel.sh: installs a built wheel (scripts/build_wheel.sh) into a fresh venv that has no build
# tools, and runs kernels from it as a user would.
#
#   bash scripts/check_wheel.sh [--python X.Y] [--root SUITE] [WHEEL]   (default: the wheel in dist/)
#
# The venv has no system site-packages, no cmake, no scikit-build-core, no nanobind; pip may only take
# wheels (--only-binary :all:), so nothing is compiled to install. Then, from a folder outside the
# repository:
#   1. a kernel on numpy arrays (timed from `pip install` to its result: install-to-first-kernel);
#   2. torch==2.13.0 installed, a kernel on torch tensors and a torch_op;
#   3. a second process with no C++ compiler reachable (CXX unset, PATH without c++) runs the same kernels,
#      so they can only come from the disk cache the first process filled;
#   4. C++: examples/cpp/ configured with find_package(quadrants) against quadrants.get_cmake_dir(), built
#      with the system's cmake and compiler, and run.
# Exits non-zero on any failure. QD_CHECK_WHEEL_TORCH=0 skips the torch part; QD_CHECK_WHEEL_ZIG=1 adds a run
# with no system compiler, through the [compiler] extra (ziglang). --python X.Y makes the venv with
# pythonX.Y (from PATH or pyenv, scripts/find_python.sh); --root SUITE runs all of it inside the Debian
# root build/roots/SUITE (scripts/debian_root.sh), whose glibc, Python and C++ compiler (the one that
# compiles kernels at run time) are that release's.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYVER=""
SUITE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PYVER=${2:?--python needs a version such as 3.13}; shift ;;
    --root) SUITE=${2:?--root needs a Debian release name such as bullseye}; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "check_wheel.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
WHEEL=$(realpath "${1:-$(ls "$REPO"/dist/quadrants-*.whl | head -1)}")
PYTHON=python3
if [ -z "$SUITE" ] && [ -n "$PYVER" ]; then
  # shellcheck source=scripts/find_python.sh
  . "$REPO/scripts/find_python.sh"
  PYTHON=$(find_python "$PYVER") || { echo "check_wheel.sh: no Python $PYVER here (PATH, pyenv); give --root SUITE" >&2; exit 2; }
fi
if [ -n "$SUITE" ]; then
  bash "$REPO/scripts/debian_root.sh" "$SUITE" --python "${PYVER:-3.11}" >/dev/null
  QD_ROOT_OUT=$(dirname "$WHEEL") exec bash "$REPO/scripts/debian_root.sh" "$SUITE" --run \
    bash /src/scripts/check_wheel.sh --python "${PYVER:-3.11}" "/out/$(basename "$WHEEL")"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset PYTHONPATH PYTHONHOME CXX
export QD_CACHE_DIR=$WORK/kernel-cache
quiet() { { grep -v "^WARNING: Location" || true; }; }

"$PYTHON" -m venv "$WORK/venv"
PY=$WORK/venv/bin/python
echo "[check_wheel] Python $("$PY" -c 'import platform; print(platform.python_version(), "on glibc", platform.libc_ver()[1])')," \
  "kernels compiled by: $(c++ --version 2>/dev/null | head -1 || echo 'no c++')"
cd "$WORK"  # kernels are compiled from their source file; the repository must not be importable
cp "$REPO/scripts/wheel_smoke.py" "$WORK/wheel_smoke.py"

ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(ms)
"$PY" -m pip install -q --only-binary :all: "$WHEEL" 2>&1 | quiet
installed=$(ms)
"$PY" wheel_smoke.py numpy
first=$(ms)
echo "[check_wheel] pip install of the wheel: $((installed - start)) ms; first run (import, compile, launch):" \
  "$((first - installed)) ms; install-to-first-kernel: $((first - start)) ms"
"$PY" -m pip list 2>/dev/null | grep -iE "^(cmake|scikit-build-core|nanobind|ninja) " && {
  echo "[check_wheel] FAILED: build tools were installed into the user's venv"; exit 1; }

targets=numpy
if [ "${QD_CHECK_WHEEL_TORCH:-1}" != 0 ]; then
  # --no-compile: byte-compiling torch's thousands of modules would take longer than unpacking them.
  "$PY" -m pip install -q --no-compile --only-binary :all: torch==2.13.0 2>&1 | quiet
  "$PY" wheel_smoke.py torch
  targets="numpy torch"
fi

# No compiler in reach: PATH holds only the venv's bin (python), not /usr/bin where c++ lives.
env PATH="$WORK/venv/bin" "$PY" wheel_smoke.py --from-cache $targets

cp -r "$REPO/examples/cpp" "$WORK/cpp-example"
"$PY" -c "import quadrants, os; assert os.path.isfile(os.path.join(quadrants.get_include(), 'quadrants', 'jit.h'))"
cmake -S "$WORK/cpp-example" -B "$WORK/cpp-build" -DCMAKE_BUILD_TYPE=Release \
  -Dquadrants_DIR="$("$PY" -c "import quadrants; print(quadrants.get_cmake_dir())")" >/dev/null
cmake --build "$WORK/cpp-build" >/dev/null
"$WORK/cpp-build/run_saxpy" "$WORK/cpp-example/saxpy.qdir"
# Optional, QD_CHECK_WHEEL_ZIG=1 (downloads ziglang, about 50 MB): a machine with no C++ compiler at all, where the
# [compiler] extra's clang (ziglang) compiles, timed from `pip install` with zig's own cache empty, then again
# for a new kernel cache once zig has built its runtime.
if [ "${QD_CHECK_WHEEL_ZIG:-0}" = 1 ]; then
  "$PYTHON" -m venv "$WORK/zig-venv"
  ZPY=$WORK/zig-venv/bin/python
  export ZIG_GLOBAL_CACHE_DIR=$WORK/zig-global-cache ZIG_LOCAL_CACHE_DIR=$WORK/zig-local-cache
  start=$(ms)
  "$ZPY" -m pip install -q --only-binary :all: "$WHEEL[compiler]" 2>&1 | quiet
  installed=$(ms)
  env PATH="$WORK/zig-venv/bin" QD_CACHE_DIR="$WORK/zig-kernels-1" "$ZPY" wheel_smoke.py numpy
  first=$(ms)
  env PATH="$WORK/zig-venv/bin" QD_CACHE_DIR="$WORK/zig-kernels-2" "$ZPY" wheel_smoke.py numpy
  second=$(ms)
  echo "[check_wheel] no system compiler, ziglang: pip install $((installed - start)) ms; first run (zig builds its" \
    "runtime once) $((first - installed)) ms; install-to-first-kernel $((first - start)) ms; a new kernel cache" \
    "with zig warm: $((second - first)) ms"
fi
echo "[check_wheel] passed: $(basename "$WHEEL")"
