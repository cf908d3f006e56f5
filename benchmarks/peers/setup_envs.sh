#!/usr/bin/env bash
# benchmarks/peers/setup_envs.sh: builds one pinned virtual environment per peer under benchmarks/peers/.envs/.
# Peers live apart from the package's own .venv: the real Quadrants shares our import name, and none of
# them may leak into our dependencies. torch is installed first and only as torch==2.13.0 (the CPU build
# that lies on this machine's disk); any other spec would pull gigabytes of CUDA wheels.
# A peer that fails to install is recorded in .envs/<name>.failed and the script goes on with the rest.
# Usage: bash benchmarks/peers/setup_envs.sh [env ...]   (no argument: all of them)
set -uo pipefail
cd "$(dirname "$0")"
ENVS=.envs
PYTHON=${PYTHON:-python3}
mkdir -p "$ENVS"

TORCH=torch==2.13.0
NUMPY=numpy==2.4.6

# name -> packages installed after numpy (and torch where the env wants it)
declare -A PACKAGES=(
  [base]="$TORCH matplotlib==3.11.2"
  [quadrants_real]="$TORCH quadrants==1.3.3"
  [taichi]="$TORCH taichi==1.7.4"
  [warp]="$TORCH warp-lang==1.19.0"
  [numba]="numba==0.68.1"
)
ORDER=(base quadrants_real taichi warp numba)

build_env() {
  local name=$1 dir="$ENVS/$1"
  rm -f "$ENVS/$name.failed" "$ENVS/$name.ok"
  [ -x "$dir/bin/python" ] || "$PYTHON" -m venv "$dir" || return 1
  "$dir/bin/python" -m pip install -q "$NUMPY" || return 1
  local package
  # one package at a time, in order, so torch is in place before anything that depends on it
  for package in ${PACKAGES[$name]}; do
    "$dir/bin/python" -m pip install -q "$package" || return 1
  done
  "$dir/bin/python" -m pip freeze > "$ENVS/$name.ok"
}

selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${ORDER[@]}")
for name in "${selected[@]}"; do
  if [ -z "${PACKAGES[$name]+set}" ]; then
    echo "setup_envs.sh: unknown environment '$name'; expected one of: ${ORDER[*]}" >&2
    exit 2
  fi
  echo "== $name: ${PACKAGES[$name]}"
  if build_env "$name" > "$ENVS/$name.log" 2>&1; then
    echo "   ok"
  else
    echo "   FAILED (see $ENVS/$name.log)"
    cp "$ENVS/$name.log" "$ENVS/$name.failed"
  fi
done
