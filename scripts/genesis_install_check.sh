#!/usr/bin/env bash
# scripts/genesis_install_check.sh: the guide's one-line Genesis install (`quadrants[genesis]`), run as a user
# runs it, in fresh venvs, then a Genesis scene stepped on the result.
#
#   bash scripts/genesis_install_check.sh [--uv] [WHEEL]     (WHEEL: default the one in dist/)
#
# For pip, in a new venv (build/genesis-install/pip-venv, made anew each run):
#   1. torch==2.13.0 first, as the guide says (here the CPU build on disk: anything else downloads GBs);
#   2. the documented command, timed:
#        pip install "WHEEL[genesis]" && pip install --no-deps genesis-world==1.4.5
#   3. quadrants is this wheel, genesis-world is 1.4.5, and `pip check` finds nothing amiss but Genesis' own
#      quadrants==1.3.3 pin; the [genesis] extra equals Genesis' runtime requirements less quadrants, so the
#      list in pyproject.toml cannot drift from Genesis' metadata unnoticed;
#   4. scripts/genesis_scenes.py's rigid scene (plane, box, sphere; 20 steps), from a folder outside the
#      repository: install-to-first-scene is timed.
# --uv does the same in a second venv with uv's form, one command, whose override replaces Genesis' pin:
#        uv pip install "WHEEL[genesis]" genesis-world==1.4.5 --override <(echo "quadrants @ file://WHEEL")
#   (uv is installed into that venv from PyPI; uv does not read the on-disk torch, so torch==2.13.0 goes in
#   with pip first).
# Downloads Genesis' requirements (about 1.3 GB installed) on each run that pip's or uv's cache lacks.
# Not part of CI (scripts/run_tests.sh): it takes minutes and GBs; the closing lines give the timings.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
GENESIS_VERSION=1.4.5
USE_UV=0
while [ $# -gt 0 ]; do
  case "$1" in
    --uv) USE_UV=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "genesis_install_check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
WHEEL=$(realpath "${1:-$(ls "$REPO"/dist/quadrants-*.whl 2>/dev/null | head -1)}") || {
  echo "genesis_install_check.sh: no wheel given and none in dist/ (bash scripts/build_wheel.sh makes one)" >&2; exit 2; }
unset PYTHONPATH PYTHONHOME
WORK=$REPO/build/genesis-install
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export QD_CACHE_DIR=$SCRATCH/kernel-cache
start=$SECONDS
log() { echo "[genesis_install_check $((SECONDS - start)) s] $*"; }
quiet() { "$@" 2>&1 | { grep -v -E "^WARNING: Location|^\[notice\]" || true; }; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# check_venv PY: the checks of step 3, then the scene of step 4.
check_venv() {
  local py=$1
  "$py" - "$WHEEL" "$GENESIS_VERSION" <<'EOF'
import os, re, sys, subprocess
from importlib.metadata import requires, version
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

wheel, genesis_version = sys.argv[1], sys.argv[2]
ours = os.path.basename(wheel).split("-")[1]
assert version("quadrants") == ours, f"quadrants {version('quadrants')} is installed, not this wheel's {ours}"
assert version("genesis-world") == genesis_version, version("genesis-world")

def key(req, marker):
    return canonicalize_name(req.name), str(req.specifier), str(Marker(marker)) if marker else ""

genesis, extra = set(), set()
for req in map(Requirement, requires("genesis-world")):  # its runtime requirements: no extra in the marker
    marker = str(req.marker) if req.marker else ""
    if canonicalize_name(req.name) != "quadrants" and "extra" not in marker:
        genesis.add(key(req, marker))
for req in map(Requirement, requires("quadrants")):  # ours under extra == "genesis", that clause taken off
    marker = str(req.marker) if req.marker else ""
    if 'extra == "genesis"' in marker:
        marker = re.sub(r'^(.*?)\s*\band extra == "genesis"$|^extra == "genesis"$', r"\1", marker)
        if marker.startswith("(") and marker.endswith(")") and marker.count("(") == 1:
            marker = marker[1:-1]
        extra.add(key(req, marker))
assert genesis == extra, ("quadrants[genesis] and Genesis' requirements differ: only in Genesis: "
                          f"{sorted(genesis - extra)}; only in the extra: {sorted(extra - genesis)}")
check = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True).stdout.splitlines()
unexpected = [line for line in check if line.strip() and "requires quadrants" not in line
              and "has requirement quadrants" not in line]
assert not unexpected, "pip check: " + "; ".join(unexpected)
print(f"[genesis_install_check] quadrants {ours} (this wheel), genesis-world {genesis_version}, "
      f"the extra matches Genesis' {len(genesis)} requirements; pip check: only Genesis' quadrants pin")
EOF
  cp "$REPO/scripts/genesis_scenes.py" "$SCRATCH/"
  (cd "$SCRATCH" && "$py" genesis_scenes.py --scenes rigid --steps 20)
}

# fresh_venv DIR: a new venv with torch==2.13.0 (pip takes the CPU build from disk) and packaging.
fresh_venv() {
  rm -rf "$1"
  python3 -m venv "$1"
  quiet "$1/bin/python" -m pip install -q --no-compile torch==2.13.0 packaging
}

mkdir -p "$WORK"
log "pip: a fresh venv with torch==2.13.0"
fresh_venv "$WORK/pip-venv"
PY=$WORK/pip-venv/bin/python
log "pip: pip install \"$(basename "$WHEEL")[genesis]\" && pip install --no-deps genesis-world==$GENESIS_VERSION"
t0=$(ms)
quiet "$PY" -m pip install -q "$WHEEL[genesis]"
quiet "$PY" -m pip install -q --no-deps "genesis-world==$GENESIS_VERSION"
t1=$(ms)
check_venv "$PY"
t2=$(ms)
log "pip: install $((t1 - t0)) ms, first scene (import, compile, 20 steps) $((t2 - t1)) ms, venv $(du -sm "$WORK/pip-venv" | cut -f1) MB"

if [ "$USE_UV" = 1 ]; then
  log "uv: a fresh venv with torch==2.13.0, then uv from PyPI"
  fresh_venv "$WORK/uv-venv"
  UPY=$WORK/uv-venv/bin/python
  quiet "$UPY" -m pip install -q uv
  log "uv: uv pip install \"$(basename "$WHEEL")[genesis]\" genesis-world==$GENESIS_VERSION --override <(...)"
  t0=$(ms)
  "$WORK/uv-venv/bin/uv" pip install -q --python "$UPY" "$WHEEL[genesis]" "genesis-world==$GENESIS_VERSION" \
    --override <(echo "quadrants @ file://$WHEEL")
  t1=$(ms)
  check_venv "$UPY"
  t2=$(ms)
  log "uv: install $((t1 - t0)) ms, first scene $((t2 - t1)) ms, venv $(du -sm "$WORK/uv-venv" | cut -f1) MB"
fi
log "passed"
