#!/usr/bin/env bash
# scripts/check_install.sh: `pip install <repo>` into a fresh venv, then import quadrants and run a kernel.
# Proves that pyproject.toml declares everything `import quadrants` needs: the venv has no system
# site-packages and no editable install, and pip builds the wheel the normal way (scikit-build-core
# in an isolated build environment). Exits non-zero on any failure.
#
# pip's cache (~/.cache/pip, or $PIP_CACHE_DIR) keeps the downloads between runs. The C++ build goes
# to a temporary folder, not the build/<wheel tag> that `pip install -e` keeps for .venv; a kept
# folder would save nothing, since each isolated build environment has a new path for nanobind's
# headers, so the bindings recompile anyway.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset PYTHONPATH PYTHONHOME
start=$SECONDS

python3 -m venv "$WORK/venv"
PY=$WORK/venv/bin/python
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$PY" -m pip install -q "$REPO" -C build-dir="$WORK/build" 2>&1 \
  | { grep -v "^WARNING: Location" || true; }
echo "[check_install] pip install took $((SECONDS - start)) s"

# A file, since kernels are compiled from their source; run outside the repo so only the install is importable.
cat >"$WORK/one_kernel.py" <<'EOF'
import sys

import numpy as np

import quadrants as qd

assert qd.__file__.startswith(sys.prefix), f"imported {qd.__file__}, not the fresh install in {sys.prefix}"
qd.init(arch=qd.cpu)


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in x:
        y[i] = a * x[i] + y[i]


x = np.arange(100_000, dtype=np.float32)
y = np.ones_like(x)
saxpy(2.0, x, y)
np.testing.assert_array_equal(y, 2 * x + 1)
print(f"[check_install] quadrants {qd.__version__} from {qd.__file__}: a kernel ran on numpy arrays")
EOF
cd "$WORK"
QD_CACHE_DIR="$WORK/kernel-cache" "$PY" one_kernel.py
echo "[check_install] passed in $((SECONDS - start)) s"
