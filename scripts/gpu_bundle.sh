#!/usr/bin/env bash
# scripts/gpu_bundle.sh: assembles in build/gpu_bundle/ what the GPU machine (no network; python3 3.12 with torch)
# lacks for scripts/gpu_check.sh (issue 33), and fails when it and the working tree exceed what may travel (64 MiB).
#
#   bash scripts/gpu_bundle.sh                         # everything, for Python 3.12, into build/gpu_bundle
#   bash scripts/gpu_bundle.sh --leave-out quadrants133 --scenes rigid,franka
#   bash scripts/gpu_bundle.sh --python-version 3.11 --out build/gpu_bundle_py311 --no-size-check   # a rehearsal here
#
# Parts, each one xz-compressed tar (the wheels inside are repacked uncompressed, so that xz compresses across them):
#   base           array-api-compat, which `import quadrants` needs and the GPU machine lacks
#   genesis        genesis-world 1.4.5 with only the assets of --scenes (default rigid,franka,go2), the wheels of
#                  its requirements that `import genesis` and those scenes need and the machine lacks, and stand-ins
#                  for modules Genesis imports but the scenes never use (--stubs: see STUBS below)
#   quadrants133   the quadrants 1.3.3 manylinux wheel (the reference), and its requirements the machine lacks
#   upstream       upstream Quadrants' tests/ (git archive of the mirror's HEAD) and the list of its GPU-only files
#   googletest     GoogleTest's sources (/usr/src/googletest), for the C++ CUDA tests
# --leave-out NAME,... omits parts when they do not fit; MANIFEST.txt says what is in and what was left out.
# Downloads are cached in build/gpu_bundle_cache/ (not carried). Exits 1 when over the limit, saying by how much.
{  # the braces make bash read the whole script before running it, so editing it mid-run is safe
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYV=3.12
OUT=""
SCENES=rigid,franka,go2
LEAVE_OUT=""
# Modules that `import genesis` imports with no fallback but that the chosen scenes never call; the bundle has a
# stand-in for each, which raises, and prints GPU-BUNDLE-STUB-USED, on any use (scripts/gpu_check.sh counts those).
# Without them the bundle does not fit beside quadrants 1.3.3 (sizes xz-compressed): av (PyAV and FFmpeg, 24.7 MB;
# video recorders), z3 (z3-solver, about 20 MB; MJCF <exclude> collision masks: panda.xml has none, go2 is URDF),
# zstandard (trajectory recorders), DracoPy (2.1 MB; Draco-compressed glTF), OpenEXR and Imath (EXR textures),
# tetgen (FEM tetrahedra), coacd (1.7 MB; convex decomposition, which robots skip by default:
# decompose_robot_error_threshold is inf, and the box and sphere are primitives).
STUBS=av,z3,zstandard,DracoPy,OpenEXR,Imath,tetgen,coacd
LIMIT=$((64 * 1024 * 1024))
SIZE_CHECK=1
XZ_LEVEL=9  # --xz-level 1 packs a rehearsal bundle much faster (and larger)
while [ $# -gt 0 ]; do
  case "$1" in
    --python-version) PYV=$2; shift ;;
    --out) OUT=$2; shift ;;
    --scenes) SCENES=$2; shift ;;
    --leave-out) LEAVE_OUT=$2; shift ;;
    --stubs) STUBS=$2; shift ;;
    --limit) LIMIT=$2; shift ;;
    --no-size-check) SIZE_CHECK=0 ;;
    --xz-level) XZ_LEVEL=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "gpu_bundle.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$PYV" in 3.1[0-3]) ;; *) echo "gpu_bundle.sh: --python-version must be 3.10-3.13, not $PYV" >&2; exit 2 ;; esac
for part in ${LEAVE_OUT//,/ }; do
  case "$part" in base|genesis|quadrants133|upstream|googletest) ;;
    *) echo "gpu_bundle.sh: --leave-out takes base, genesis, quadrants133, upstream, googletest; not $part" >&2; exit 2 ;;
  esac
done
TAG=py${PYV/./}
OUT=${OUT:-$REPO/build/gpu_bundle$([ "$PYV" = 3.12 ] || echo "_$TAG")}
CACHE=$REPO/build/gpu_bundle_cache/$TAG
UPSTREAM_REPO=${UPSTREAM_REPO:-/work/.mirror/Genesis-Embodied-AI+quadrants/repo}
TOOLS=(python3 "$REPO/scripts/gpu_bundle_tools.py")
mkdir -p "$OUT" "$CACHE"
start=$SECONDS
log() { echo "[gpu_bundle $((SECONDS - start)) s] $*"; }
left_out() { [[ ",$LEAVE_OUT," == *",$1,"* ]]; }

# What to download. Versions are those Genesis 1.4.5 ran with on the CPU here (build/genesis-venv), except mujoco:
# 3.10, Genesis' own test pin. pycollada reads go2's .dae meshes (through trimesh). gs-madrona (37 MB, batch
# rendering; imported in a try) and Genesis' requirements that its import never reaches (moviepy, opencv-python: cv2
# is on the machine as opencv-python-headless, pymeshlab, vtk, pysplashsurf; rtree: trimesh's optional index) are
# left out, with the modules replaced by stand-ins (STUBS); so is plotly, which only pygel3d's notebook display
# imports.
BASE_REQS=(array-api-compat==1.16.0)
GENESIS_REQS=(genesis-world==1.4.5
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 typing-extensions==4.16.0
  frozendict==2.5.1 trimesh==5.2.0 xacro==2.1.1 libigl==2.6.3 mujoco==3.10.0 glfw==2.11.0 PyOpenGL==3.1.10
  pyglet==2.1.19 freetype-py==2.5.1 dataclasses-json==0.6.7 marshmallow==3.26.2 fast-simplification==0.2.0
  PyGEL3D==0.8.2 Deprecated==1.3.1 pycollada==0.9.3)
GENESIS_SDIST_REQS=(pygltflib==1.16.0)  # no wheel on PyPI: built here (pure Python)
GENESIS_LEFT_OUT=(quadrants gs-madrona moviepy opencv-python pymeshlab vtk pysplashsurf rtree plotly
  importlib-resources av z3-solver zstandard DracoPy OpenEXR tetgen coacd)
# quadrants 1.3.3 imports dill (missing on the machine) and pydantic (in the genesis part); it also names cffi, which
# none of its Python code imports, so cffi is left out.
Q133_REQS=(quadrants==1.3.3 dill==0.4.1)
Q133_LEFT_OUT=(cffi)
# Assets (under genesis/assets/) each scene loads, found by recording the files the scenes open on the CPU (the
# plane's checker texture, go2's URDF and .dae meshes), plus the whole folder of each robot description: MuJoCo
# reads panda.xml's meshes itself, where Python does not see them.
declare -A SCENE_ASSETS=([rigid]="textures/checker.png" [franka]="xml/franka_emika_panda/" [go2]="urdf/go2/")
KEEP_ASSETS=()
for scene in ${SCENES//,/ }; do
  [ -n "${SCENE_ASSETS[$scene]:-}" ] || { echo "gpu_bundle.sh: no assets known for scene $scene" >&2; exit 2; }
  read -r -a prefixes <<<"${SCENE_ASSETS[$scene]}"
  KEEP_ASSETS+=("${prefixes[@]}")
done
KEEP_ASSETS+=("textures/checker.png")  # every scene stands on the plane, which is textured

PLATFORMS=()
for p in manylinux_2_35 manylinux_2_34 manylinux_2_31 manylinux_2_28 manylinux_2_27 manylinux_2_24 manylinux_2_17 \
  manylinux2014 manylinux_2_12 manylinux2010 manylinux_2_5 manylinux1; do PLATFORMS+=(--platform "${p}_x86_64"); done
quiet() { "$@" 2>&1 | { grep -v -E "^WARNING: Location|^\[notice\]" || true; }; }
download() {  # download DIR REQ...: binary wheels for the target Python, no dependencies (they are all named)
  local dir=$1; shift
  quiet python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" --implementation cp \
    "${PLATFORMS[@]}" -d "$dir" "$@"
}
# pack NAME DIR: DIR's contents as NAME.tar.xz in OUT, reproducibly (sorted, no owners or times).
pack() {
  tar -C "$2" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | xz "-$XZ_LEVEL" -T1 >"$OUT/$1.tar.xz.part"
  mv "$OUT/$1.tar.xz.part" "$OUT/$1.tar.xz"
}
# A part is rebuilt only when its key (its inputs) changed.
fresh() { [ -f "$OUT/$1.tar.xz" ] && [ "$(cat "$OUT/.$1.key" 2>/dev/null)" = "$2" ]; }
mark() { echo "$2" >"$OUT/.$1.key"; }
drop() { rm -f "$OUT/$1.tar.xz" "$OUT/.$1.key"; }

stage_wheels() {  # stage_wheels DIR REQ...: the wheels of REQ, each repacked uncompressed, in DIR/wheels
  local dir=$1; shift
  rm -rf "$dir"; mkdir -p "$dir/wheels"
  for wheel in "$@"; do "${TOOLS[@]}" repack "$wheel" "$dir/wheels" >/dev/null; done
}
wheel_of() {  # wheel_of REQ: the cached wheel file of a pinned requirement
  local name=${1%%==*} version=${1#*==}
  local pattern
  pattern=$(echo "$name" | tr 'A-Z-' 'a-z_')
  find "$CACHE" -maxdepth 2 -iname "${pattern}-${version}-*.whl" | head -1
}
fetch_all() {  # fetch_all REQ...: downloads what the cache lacks
  local missing=()
  for req in "$@"; do [ -n "$(wheel_of "$req")" ] || missing+=("$req"); done
  [ ${#missing[@]} -eq 0 ] || { log "downloading ${missing[*]}"; download "$CACHE" "${missing[@]}"; }
  for req in "$@"; do [ -n "$(wheel_of "$req")" ] || { echo "gpu_bundle.sh: no wheel for $req" >&2; exit 1; }; done
}

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

if left_out base; then drop base; else
  key="$PYV ${BASE_REQS[*]}"
  if ! fresh base "$key"; then
    fetch_all "${BASE_REQS[@]}"
    mapfile -t wheels < <(for r in "${BASE_REQS[@]}"; do wheel_of "$r"; done)
    stage_wheels "$STAGE/base" "${wheels[@]}"
    pack base "$STAGE/base"; mark base "$key"; log "base packed"
  fi
fi

if left_out genesis; then drop genesis; else
  key="$PYV ${GENESIS_REQS[*]} ${GENESIS_SDIST_REQS[*]} assets: ${KEEP_ASSETS[*]} stubs: $STUBS"
  if ! fresh genesis "$key"; then
    fetch_all "${GENESIS_REQS[@]}"
    for req in "${GENESIS_SDIST_REQS[@]}"; do
      if [ -z "$(wheel_of "$req")" ]; then
        log "building a wheel of $req (no wheel on PyPI)"
        mkdir -p "$CACHE/built"
        quiet python3 -m pip wheel -q --no-deps -w "$CACHE/built" "$req"
      fi
    done
    mapfile -t wheels < <(for r in "${GENESIS_REQS[@]}" "${GENESIS_SDIST_REQS[@]}"; do wheel_of "$r"; done)
    rm -rf "$STAGE/genesis"; mkdir -p "$STAGE/genesis/wheels"
    for wheel in "${wheels[@]}"; do
      case "$(basename "$wheel")" in
        genesis_world-*) "${TOOLS[@]}" repack "$wheel" "$STAGE/genesis/wheels" --keep-assets "${KEEP_ASSETS[@]}" ;;
        *) "${TOOLS[@]}" repack "$wheel" "$STAGE/genesis/wheels" >/dev/null ;;
      esac
    done
    "${TOOLS[@]}" closure "$STAGE/genesis/wheels" --python-version "$PYV" --present "$REPO/scripts/gpu_machine_packages.txt" \
      --left-out "${GENESIS_LEFT_OUT[@]}"
    [ -z "$STUBS" ] || "${TOOLS[@]}" stubs "$STAGE/genesis/stubs" ${STUBS//,/ }
    pack genesis "$STAGE/genesis"; mark genesis "$key"; log "genesis packed"
  fi
fi

if left_out quadrants133; then drop quadrants133; else
  key="$PYV ${Q133_REQS[*]}"
  if ! fresh quadrants133 "$key"; then
    fetch_all "${Q133_REQS[@]}"
    mapfile -t wheels < <(for r in "${Q133_REQS[@]}"; do wheel_of "$r"; done)
    stage_wheels "$STAGE/quadrants133" "${wheels[@]}"
    mapfile -t genesis_wheels < <(for r in "${GENESIS_REQS[@]}"; do echo "${r%%==*}"; done)
    "${TOOLS[@]}" closure "$STAGE/quadrants133/wheels" --python-version "$PYV" \
      --present "$REPO/scripts/gpu_machine_packages.txt" --left-out "${Q133_LEFT_OUT[@]}" "${genesis_wheels[@]}"
    pack quadrants133 "$STAGE/quadrants133"; mark quadrants133 "$key"; log "quadrants133 packed"
  fi
fi

if left_out upstream; then drop upstream; rm -f "$OUT/upstream_gpu_files.txt" "$OUT/upstream_gpu_files.json"; else
  commit=$(git -C "$UPSTREAM_REPO" rev-parse HEAD)
  if ! fresh upstream "$commit"; then
    mkdir -p "$STAGE/upstream"
    git -C "$UPSTREAM_REPO" archive HEAD tests python/tools >"$STAGE/upstream/tests.tar"
    xz "-$XZ_LEVEL" -T2 <"$STAGE/upstream/tests.tar" >"$OUT/upstream.tar.xz"; mark upstream "$commit"; log "upstream packed"
  fi
  # Which files run nothing on the CPU (collected, not run), with our package on the driver emulation.
  if [ ! -s "$OUT/upstream_gpu_files.txt" ] || [ "$(cat "$OUT/.upstream_files.key" 2>/dev/null)" != "$commit" ]; then
    EMU=$REPO/build/cpp/cuda_emulator
    if [ -x "$REPO/.venv/bin/python" ] && [ -f "$EMU/libqd_emulated_driver.so" ]; then
      log "listing upstream's GPU-only test files (collection on the driver emulation)"
      QD_CUDA_DRIVER_PATH=$EMU/libqd_emulated_driver.so QD_NVRTC_PATH=$EMU/libqd_emulated_nvrtc.so \
        "$REPO/.venv/bin/python" "$REPO/scripts/upstream_gpu_files.py" --repo "$OUT/upstream.tar.xz" \
        --json "$OUT/upstream_gpu_files.json" >"$OUT/upstream_gpu_files.txt"
      echo "$commit" >"$OUT/.upstream_files.key"
    else
      log "no .venv or driver emulation here (bash scripts/setup.sh): gpu_check.sh will list the files on the GPU"
      rm -f "$OUT/upstream_gpu_files.txt"
    fi
  fi
fi

if left_out googletest; then drop googletest; else
  if ! fresh googletest "$(ls -l --time-style=+%s /usr/src/googletest 2>/dev/null | md5sum)"; then
    [ -d /usr/src/googletest ] || { echo "gpu_bundle.sh: /usr/src/googletest is missing (apt-get install libgtest-dev)" >&2; exit 1; }
    mkdir -p "$STAGE/googletest"; cp -r /usr/src/googletest/. "$STAGE/googletest/"
    pack googletest "$STAGE/googletest"
    mark googletest "$(ls -l --time-style=+%s /usr/src/googletest | md5sum)"; log "googletest packed"
  fi
fi

{
  echo "# MANIFEST.txt: the GPU bundle, made by scripts/gpu_bundle.sh on $(date -u +%F) for Python $PYV"
  echo "scenes: $SCENES; genesis assets kept: ${KEEP_ASSETS[*]}"
  echo "stand-ins (imported by Genesis, unused by the scenes): ${STUBS:-none}"
  echo "left out: ${LEAVE_OUT:-nothing}"
  echo "requirements left out on purpose: ${GENESIS_LEFT_OUT[*]} ${Q133_LEFT_OUT[*]}"
  for f in "$OUT"/*.tar.xz; do
    echo "== $(basename "$f") ($(stat -c %s "$f") bytes)"
    python3 - "$f" <<'EOF'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        if m.isfile():
            print(f"  {m.size:>11}  {m.name}")
EOF
  done
} >"$OUT/MANIFEST.txt"
log "bundle in $OUT"
[ "$SIZE_CHECK" = 1 ] || { "${TOOLS[@]}" size "$OUT" --limit $((1 << 40)) --repo "$REPO"; exit 0; }
"${TOOLS[@]}" size "$OUT" --limit "$LIMIT" --repo "$REPO"
exit
}
