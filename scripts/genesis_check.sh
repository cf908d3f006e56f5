#!/usr/bin/env bash
# scripts/genesis_check.sh: runs headless Genesis (genesis-world 1.4.5) scenes on the CPU on quadrants
# from this checkout, and optionally on the real quadrants 1.3.3, comparing positions and velocities (issues 19, 34),
# and differentiable scenes (requires_grad=True, loss.backward()), comparing losses and gradients (issue 32).
#
#   bash scripts/genesis_check.sh                  # our quadrants only
#   bash scripts/genesis_check.sh --reference      # also the real quadrants==1.3.3, then compare
#   bash scripts/genesis_check.sh --scenes rigid,franka --horizons 20,200
#   bash scripts/genesis_check.sh --sensitivity    # 1.3.3 against itself: fast_math=False, 2 threads
#   bash scripts/genesis_check.sh --reference --setup-only   # only make the venvs
#   bash scripts/genesis_check.sh --reference --keep DIR     # keep the JSON results in DIR
#   bash scripts/genesis_check.sh --reference --scenes none --grad-scenes mpm_push   # one differentiable scene
#
# States are recorded after each horizon (default 20,50,100,200 steps). --reference compares each scene at the
# horizon, element by element or by statistics, and within the tolerances that scripts/genesis_compare.py's
# POLICIES chose from the scene's sensitivity (docs/genesis_status.md); a NaN on either side fails.
# --sensitivity runs 1.3.3 three times (as Genesis runs it; with qd.init(fast_math=False); with QD_NUM_THREADS=2)
# and prints how far the second and third drift from the first at each horizon: what the tolerances rest on.
# The differentiable scenes (scripts/genesis_grad_scenes.py; --grad-scenes, default mpm_push,rigid_box, or none) run
# alongside: with --reference their losses and initial-state gradients are compared within the relative tolerances
# of genesis_grad_scenes.py's TOLERANCES, which --sensitivity's runs of 1.3.3 against itself chose.
# Venvs (reused when present, so only the first run downloads Genesis' requirements; about 4 GB each):
#   build/genesis-venv      torch==2.13.0 (the CPU build on disk), quadrants from this checkout
#                           (editable, built in build/genesis-venv-build), genesis-world --no-deps and
#                           Genesis' other runtime requirements, named one by one from its metadata with
#                           quadrants left out, so pip cannot pull the real quadrants over ours.
#   build/genesis-ref-venv  the same with quadrants==1.3.3 from PyPI (--reference, --sensitivity).
# GENESIS_VENV and GENESIS_REF_VENV name other venvs.
# Not part of CI (scripts/run_tests.sh): it takes minutes; docs/genesis_status.md says how long.
# Exits non-zero when a venv cannot be set up, a scene fails on ours, or (with --reference) a scene does not MATCH.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${GENESIS_VENV:-$REPO/build/genesis-venv}
REF_VENV=${GENESIS_REF_VENV:-$REPO/build/genesis-ref-venv}
GENESIS_VERSION=1.4.5
REFERENCE=0
SENSITIVITY=0
SETUP_ONLY=0
KEEP=""
SCENE_ARGS=()
FORWARD=1
HORIZONS=20,50,100,200
GRAD_SCENES=mpm_push,rigid_box
while [ $# -gt 0 ]; do
  case "$1" in
    --reference) REFERENCE=1 ;;
    --sensitivity) SENSITIVITY=1 ;;
    --setup-only) SETUP_ONLY=1 ;;
    --keep) KEEP=$2; shift ;;
    --scenes) if [ "$2" = none ]; then FORWARD=0; else SCENE_ARGS+=("$1" "$2"); fi; shift ;;
    --grad-scenes) GRAD_SCENES=$2; shift ;;
    --horizons|--steps) HORIZONS=$2; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
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
if [ "$REFERENCE" = 1 ] || [ "$SENSITIVITY" = 1 ]; then setup_venv "$REF_VENV" "quadrants==1.3.3"; fi
log "venvs ready"
[ "$SETUP_ONLY" = 1 ] && exit 0

# Scenes run from a temporary folder, so nothing in this checkout but the installed package is imported.
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cp "$REPO/scripts/genesis_scenes.py" "$REPO/scripts/genesis_compare.py" "$REPO/scripts/genesis_grad_scenes.py" "$OUT/"
# run_scenes LABEL PYTHON [VAR=VALUE...]: the scenes into $OUT/LABEL.json
run_scenes() {
  local label=$1 py=$2 code=0
  shift 2
  if [ "$FORWARD" = 1 ]; then
    (cd "$OUT" && env "$@" "$py" genesis_scenes.py "${SCENE_ARGS[@]}" --horizons "$HORIZONS" \
      --json "$OUT/$label.json") || code=$?
    log "scenes: $label done (exit $code)"
  fi
  [ "$GRAD_SCENES" = none ] && return $code
  (cd "$OUT" && env "$@" "$py" genesis_grad_scenes.py --scenes "$GRAD_SCENES" --json "$OUT/$label-grad.json") || code=1
  log "differentiable scenes: $label done (exit $code)"
  return $code
}
# compare_grads FIRST SECOND [--self]: losses and gradients of two runs' differentiable scenes
compare_grads() {
  [ "$GRAD_SCENES" = none ] && return 0
  python3 "$OUT/genesis_grad_scenes.py" --compare "$OUT/$1-grad.json" "$OUT/$2-grad.json" "${@:3}"
}
status=0
if [ "$SENSITIVITY" = 1 ]; then
  run_scenes ref "$REF_VENV/bin/python" || true
  run_scenes ref-no-fast-math "$REF_VENV/bin/python" GENESIS_SCENES_FAST_MATH=0 || true
  run_scenes ref-2-threads "$REF_VENV/bin/python" QD_NUM_THREADS=2 || true
  for other in ref-no-fast-math ref-2-threads; do
    echo "== 1.3.3 against 1.3.3 $other"
    [ "$FORWARD" = 0 ] || python3 "$OUT/genesis_compare.py" "$OUT/ref.json" "$OUT/$other.json" --curve
    compare_grads ref "$other" --self || true
  done
else
  run_scenes ours "$VENV/bin/python" || status=$?
  if [ "$REFERENCE" = 1 ]; then
    run_scenes ref "$REF_VENV/bin/python" || true
    [ "$FORWARD" = 0 ] || python3 "$OUT/genesis_compare.py" "$OUT/ours.json" "$OUT/ref.json" || status=1
    compare_grads ours ref || status=1
  fi
fi
if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP"
  cp "$OUT"/*.json "$KEEP"/
  log "results kept in $KEEP"
fi
log "finished (exit $status)"
exit $status
