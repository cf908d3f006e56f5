#!/usr/bin/env bash
# scripts/setup.sh: idempotent setup on a fresh machine: system packages, .venv, Python deps, build.
set -euo pipefail
cd "$(dirname "$0")/.."

# GoogleTest for the C++ tests; Eigen (header-only) for the sparse direct solver in src/linalg/. The wheel's
# build takes Eigen from PyPI's cmeel-eigen instead (pyproject.toml), so a pip install needs no apt.
if [ ! -f /usr/include/gtest/gtest.h ] || [ ! -f /usr/include/eigen3/Eigen/SparseCholesky ]; then
  echo "[setup] installing GoogleTest and Eigen (libgtest-dev, libeigen3-dev)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libgtest-dev libeigen3-dev cmake g++ >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  python3 -m venv .venv
fi
PY=.venv/bin/python
# torch first and pinned: the CPU build of 2.13.0 is on disk; anything unpinned would pull a CUDA build.
if ! $PY -c "import torch" 2>/dev/null; then
  echo "[setup] installing torch==2.13.0"
  $PY -m pip install -q torch==2.13.0
fi
# nvidia-cuda-nvrtc: NVRTC for compile-checking generated CUDA on machines without a GPU; distributed and ray:
# the scale-out examples' tests (ray: about 45 s and 285 MB the first time); sphinx and myst-parser: the
# documentation site (scripts/build_docs.sh, tests/python/test_docs.py); pytest-xdist and pyright: upstream's
# tests that drive them (scripts/upstream_tests.py names any of upstream's test group that is missing).
$PY -m pip install -q numpy pytest hypothesis nanobind scikit-build-core array-api-compat nvidia-cuda-nvrtc \
  "dask[distributed]" ray sphinx myst-parser pytest-xdist pyright 2>&1 \
  | { grep -v "^WARNING: Location" || true; }

bash scripts/build.sh
