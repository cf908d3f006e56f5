#!/usr/bin/env bash
# scripts/wheel_matrix.sh: builds and checks the wheels beyond the cp311 one of every full test run: another
# Python, and an older glibc, each installed and run where a user of it would be.
#
#   bash scripts/wheel_matrix.sh [cp313] [trixie] [glibc231]     (default: all three)
#
#   cp313     scripts/build_wheel.sh --python 3.13 into dist/cp313 (this machine's Python 3.13, else the Debian
#             13 root), then scripts/check_wheel.sh --python 3.13 here (without torch: the CPU build of
#             torch on disk is for 3.11, and any other downloads GBs);
#   trixie    that cp313 wheel checked inside the Debian 13 root: Debian's python3.13, glibc 2.41, and GCC 14
#             compiling the kernels;
#   glibc231  scripts/build_wheel.sh --python 3.11 --root bullseye into dist/glibc2.31: built in the Debian 11
#             root (glibc 2.31, GCC 10) with a Python 3.11 built there, so tagged manylinux_2_31, and checked
#             in that root with torch==2.13.0, GCC 10 compiling the kernels, then with GCC 9 (Ubuntu 20.04's
#             default compiler) compiling them.
# Roots are made once under build/roots (scripts/debian_root.sh; root needed). Prints a closing table:
# wheel, tag, size, where it was checked, and its install-to-first-kernel time there. Exits non-zero when a
# build or a check fails. scripts/run_tests.sh runs the cp313 row on full runs; this script runs all three.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
ROWS=("$@")
[ ${#ROWS[@]} -eq 0 ] && ROWS=(cp313 trixie glibc231)
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
RESULTS=()
start=$SECONDS

# row NAME WHEEL_DIR WHERE CHECK_ARGS...: checks the wheel in WHEEL_DIR with check_wheel.sh CHECK_ARGS, then
# records its tag, size, WHERE it was checked and its install-to-first-kernel time.
row() {
  local name=$1 dir=$2 where=$3
  shift 3
  local wheel
  wheel=$(ls "$dir"/quadrants-*.whl)
  local t0=$SECONDS
  bash "$REPO/scripts/check_wheel.sh" "$@" "$wheel" 2>&1 | tee "$LOGS/$name.log"
  local first
  first=$(grep -oE "install-to-first-kernel: [0-9]+ ms" "$LOGS/$name.log" | head -1 | grep -oE "[0-9]+")
  RESULTS+=("$(printf '%-9s %-52s %6s KiB  %-28s %6s ms  (check %d s)' "$name" \
    "$(basename "$wheel" .whl | cut -d- -f3-)" "$(du -k "$wheel" | cut -f1)" "$where" "$first" $((SECONDS - t0)))")
}

for r in "${ROWS[@]}"; do
  case "$r" in
    cp313)
      t0=$SECONDS
      bash "$REPO/scripts/build_wheel.sh" --python 3.13 "$REPO/dist/cp313"
      echo "[wheel_matrix] cp313 built in $((SECONDS - t0)) s"
      QD_CHECK_WHEEL_TORCH=0 row cp313 "$REPO/dist/cp313" "this machine, Python 3.13" --python 3.13 ;;
    trixie)
      [ -n "$(ls "$REPO"/dist/cp313/quadrants-*.whl 2>/dev/null)" ] || {
        echo "wheel_matrix.sh: trixie checks dist/cp313's wheel; run the cp313 row first" >&2; exit 2; }
      QD_CHECK_WHEEL_TORCH=0 row trixie "$REPO/dist/cp313" "Debian 13, glibc 2.41" --root trixie --python 3.13 ;;
    glibc231)
      t0=$SECONDS
      bash "$REPO/scripts/build_wheel.sh" --python 3.11 --root bullseye "$REPO/dist/glibc2.31"
      echo "[wheel_matrix] glibc 2.31 wheel built in $((SECONDS - t0)) s"
      row glibc231 "$REPO/dist/glibc2.31" "Debian 11, glibc 2.31" --root bullseye --python 3.11
      # GCC 9, Ubuntu 20.04's default compiler, compiling the kernels of the same wheel in the same root.
      QD_ROOT_OUT=$REPO/dist/glibc2.31 bash "$REPO/scripts/debian_root.sh" bullseye --run bash -c '
        set -euo pipefail
        command -v g++-9 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-9 >/dev/null
        work=$(mktemp -d) && cd "$work" && python3.11 -m venv venv
        venv/bin/pip install -q --only-binary :all: /out/quadrants-*.whl 2>&1 | { grep -v "^WARNING: Loc" || true; }
        cp /src/scripts/wheel_smoke.py . && QD_CACHE_DIR=$work/cache CXX=g++-9 venv/bin/python wheel_smoke.py numpy
        echo "[wheel_matrix] glibc231: kernels compiled by $(g++-9 --version | head -1)"
        cd / && rm -rf "$work"' ;;
    *) echo "wheel_matrix.sh: unknown row $r (cp313, trixie, glibc231)" >&2; exit 2 ;;
  esac
done

echo "[wheel_matrix] done in $((SECONDS - start)) s"
printf '%-9s %-52s %10s  %-28s %9s\n' row tag size "checked in" "install-to-first-kernel"
printf '%s\n' "${RESULTS[@]}"
