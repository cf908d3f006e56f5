#!/usr/bin/env bash
# scripts/genesis_check.sh: runs headless Genesis (genesis-world 1.4.5) scenes on the CPU on quadrants
# from this checkout, and optionally on the real quadrants 1.3.3, comparing the final states (issue 19).
#
#   bash scripts/genesis_check.sh                  # our quadrants only
#   bash scripts/genesis_check.sh --reference      # also the real quadrants==1.3.3, then compare
#   bash scripts/genesis_check.sh --steps 20 --scenes rigid,franka
#   bash scripts/genesis_check.sh --reference --setup-only   # only make the venvs
#
# Venvs (reused when present, so only the first run downloads Genesis' requirements; about 4 GB each):
#   build/genesis-venv      torch==2.13.0 (the CPU build on disk), quadrants from this checkout
#                           (editable, built in build/genesis-venv-build), genesis-world --no-deps and
#                           Genesis' other runtime requirements, named one by one from its metadata with
#                           quadrants left out, so pip cannot pull the real quadrants over ours.
#   build/genesis-ref-venv  the same with quadrants==1.3.3 from PyPI (--reference only).
# Not part of CI (scripts/run_tests.sh): it takes minutes; docs/genesis_status.md says how long.
# Exits non-zero when a venv cannot be set up, a scene fails on ours, or (with --reference) a state
# differs by more than 1e-3.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${GENESIS_VENV:-$REPO/build/genesis-venv}
REF_VENV=${GENESIS_REF_VENV:-$REPO/build/genesis-ref-venv}
GENESIS_VERSION=1.4.5
REFERENCE=0
SETUP_ONLY=0
SCENE_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reference) REFERENCE=1 ;;
    --setup-only) SETUP_ONLY=1 ;;
    --steps|--scenes) SCENE_ARGS+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "genesis_check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
unset PYTHONPATH PYTHONHOME
start=$SECONDS
log() { echo "[genesis_check $((SECONDS - start)) s] $*"; }
quiet_pip() { "$@" 2>&1 | { grep -v -E "^WARNING: Location|^\[notice\]" || true; }; }

# Genesis' runtime requirements from its installed metadata: no extras, markers evaluated, no quadrants.
genesis_requirements() {
  "$1" - <<'EOF'
from importlib.metadata import requires
from packaging.requirements import Requirement
for text in requires("genesis-world"):
    req = Requirement(text)
    if req.name.lower() == "quadrants":
        continue
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    print(str(req).split(";")[0].strip())
EOF
}

# setup_venv DIR QUADRANTS: QUADRANTS is "ours" (this checkout, editable) or a pip requirement.
setup_venv() {
  local dir=$1 quadrants=$2 py=$1/bin/python
  [ -x "$py" ] || { log "creating $dir"; python3 -m venv "$dir"; }
  # torch first and pinned: 2.13.0 is the CPU build on disk; anything else downloads a CUDA build.
  "$py" -c "import torch" 2>/dev/null || { log "installing torch==2.13.0"; quiet_pip "$py" -m pip install -q torch==2.13.0; }
  if [ "$quadrants" = ours ]; then
    # Editable, so fixes in python/ show at once; the C++ core rebuilds incrementally in its own folder.
    quiet_pip "$py" -m pip install -q nanobind scikit-build-core numpy array-api-compat packaging
    log "installing quadrants from $REPO (editable)"
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) quiet_pip "$py" -m pip install -q --no-build-isolation --no-deps \
      -e "$REPO" -C build-dir="$REPO/build/genesis-venv-build"
  elif ! "$py" -m pip show -q quadrants >/dev/null 2>&1; then
    log "installing $quadrants"
    quiet_pip "$py" -m pip install -q "$quadrants" packaging
  fi
  if ! "$py" -m pip show -q genesis-world >/dev/null 2>&1; then
    log "installing genesis-world==$GENESIS_VERSION (no deps) and its requirements"
    quiet_pip "$py" -m pip install -q --no-deps "genesis-world==$GENESIS_VERSION"
    mapfile -t reqs < <(genesis_requirements "$py")
    quiet_pip "$py" -m pip install -q "${reqs[@]}"
  fi
  # A requirement of a requirement could still have pulled quadrants from PyPI over ours.
  if [ "$quadrants" = ours ]; then
    "$py" -c "import quadrants, sys; p = quadrants.__file__; sys.exit(0 if p.startswith('$REPO/python/') else f'quadrants comes from {p}, not this checkout')"
  fi
}

setup_venv "$VENV" ours
[ "$REFERENCE" = 1 ] && setup_venv "$REF_VENV" "quadrants==1.3.3"
log "venvs ready"
[ "$SETUP_ONLY" = 1 ] && exit 0

# Scenes run from a temporary folder, so nothing in this checkout but the installed package is imported.
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cp "$REPO/scripts/genesis_scenes.py" "$OUT/"
status=0
(cd "$OUT" && "$VENV/bin/python" genesis_scenes.py "${SCENE_ARGS[@]}" --json "$OUT/ours.json") || status=$?
log "scenes on our quadrants done (exit $status)"
if [ "$REFERENCE" = 1 ]; then
  ref_status=0
  (cd "$OUT" && "$REF_VENV/bin/python" genesis_scenes.py "${SCENE_ARGS[@]}" --json "$OUT/ref.json") || ref_status=$?
  log "scenes on quadrants 1.3.3 done (exit $ref_status)"
  python3 "$OUT/genesis_scenes.py" --compare "$OUT/ours.json" "$OUT/ref.json" --tolerance 1e-3 || status=1
fi
log "finished (exit $status)"
exit $status
