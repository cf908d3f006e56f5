#!/usr/bin/env bash
# scripts/gpu_check.sh: the checks for a machine with an NVIDIA GPU and no network (issue 33), in stages that can be
# chosen, each under its own time cap and all under one budget, so that one stuck stage cannot eat the lease.
#
#   bash scripts/gpu_check.sh                        # STAGES=install,build,suites+upstream,genesis,bench
#   STAGES=install,build,genesis BUDGET_S=300 bash scripts/gpu_check.sh
#
# Stages run in the order given; "a+b" runs a and b at the same time (neither is timed). Cap in seconds, overridable
# as CAP_<stage>=N; each stage gets its cap or what is left of BUDGET_S (default 570), whichever is less:
#   install   (90)  unpacks the bundle ($BUNDLE, default build/gpu_bundle, made by scripts/gpu_bundle.sh) into $WORK
#                   (default /tmp/qd_gpu_check); installs array-api-compat into $PY, Genesis and its requirements
#                   into $WORK/genesis-site (pip --target), quadrants 1.3.3 into $WORK/ref-site, and a venv
#                   $WORK/ref-venv whose .pth puts ref-site, genesis-site and $PY's site-packages on its path (a .pth
#                   line adds a folder without running that folder's .pth files, so our editable install stays out);
#                   then imports every bundled module
#   build     (150) pip install -e . with $PY (nanobind and scikit-build-core are on the GPU machine)
#   suites    (120) the C++ tests (GoogleTest built from the bundle, or GTEST_PREFIX) beside tests/python with
#                   QD_TEST_ARCH=cuda (PYTEST_ARGS replaces tests/python; PYTEST_JOBS, default nproc/2)
#   upstream  (120) scripts/upstream_tests.py --arch cuda over upstream's GPU-only files (the bundle's list, or
#                   UPSTREAM_FILES), one file per process, UPSTREAM_JOBS (default 4) at a time
#   genesis   (300) scripts/genesis_gpu_scenes.py, scene by scene, on ours then on 1.3.3, each quadrants starting
#                   from empty caches (XDG_CACHE_HOME, CUDA_CACHE_PATH); GENESIS_SCENES (rigid,franka,go2),
#                   GENESIS_N_ENVS (1,4096), GENESIS_STEPS (100), GENESIS_SCENE_TIMEOUT (150); then compared
#   bench     (80)  benchmarks/bench_gpu.py on ours and on 1.3.3, then side by side
#
# Outputs in $OUT (default gpu_out/). The device tool brings back at most 8 files, so there are three, rewritten
# after each stage (what ran comes back even if a later stage is killed): summary.txt (each stage's headline),
# results.json (each stage's JSON under its name) and logs.tar.gz (each stage's log and JSON, and detail files).
# Rehearsal without a GPU: GPU_CHECK_EMULATION=1 runs CUDA on the driver emulation (build/cpp/cuda_emulator), Genesis
# on the CPU (GENESIS_BACKEND=cpu, GENESIS_N_ENVS=1,2, GENESIS_STEPS=12 unless set) and skips bench (torch has no CUDA).
{  # the braces make bash read the whole script before running it, so editing it mid-run is safe
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
export PY=${PY:-python3}
case "$PY" in /*) ;; */*) PY=$REPO/$PY ;; esac  # stages run from other folders
export OUT=${OUT:-gpu_out} WORK=${WORK:-/tmp/qd_gpu_check} BUNDLE=${BUNDLE:-$REPO/build/gpu_bundle}
mkdir -p "$OUT" "$WORK/logs"
export LOGS=$WORK/logs
OUT=$(cd "$OUT" && pwd)
BUNDLE=$(cd "$BUNDLE" 2>/dev/null && pwd || echo "$BUNDLE")
JOBS=$(nproc)
EMULATION=${GPU_CHECK_EMULATION:-0}
if [ "$EMULATION" = 1 ]; then
  export QD_CUDA_DRIVER_PATH=$REPO/build/cpp/cuda_emulator/libqd_emulated_driver.so
  export QD_NVRTC_PATH=$REPO/build/cpp/cuda_emulator/libqd_emulated_nvrtc.so
  export GENESIS_BACKEND=${GENESIS_BACKEND:-cpu} GENESIS_N_ENVS=${GENESIS_N_ENVS:-1,2} GENESIS_STEPS=${GENESIS_STEPS:-12}
fi

# emit STAGE KEY=VALUE...: writes $LOGS/STAGE.json; a value that parses as JSON stays JSON, @FILE embeds a JSON file.
emit() {
  "$PY" - "$LOGS/$1.json" "${@:2}" <<'EOF'
import json, os, sys
record = {}
for item in sys.argv[2:]:
    key, _, value = item.partition("=")
    if value.startswith("@"):
        path = value[1:]
        try:
            with open(path) as f:
                record[key] = json.load(f)
        except (OSError, ValueError) as exc:
            record[key] = f"unreadable: {exc}"
        continue
    try:
        record[key] = json.loads(value)
    except ValueError:
        record[key] = value
with open(sys.argv[1], "w") as f:
    json.dump(record, f, indent=1)
EOF
}
headline() { echo "$*" >>"$LOGS/$STAGE.headline"; echo "$*"; }
json_list() { "$PY" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"; }  # its arguments as a JSON list
unpack() {  # unpack PART: $BUNDLE/PART.tar.xz into $WORK/bundle/PART, unless already unpacked from the same file
  [ -f "$BUNDLE/$1.tar.xz" ] || { echo "the bundle has no $1 part ($BUNDLE/$1.tar.xz)"; return 1; }
  local key
  key=$(stat -c '%s %Y' "$BUNDLE/$1.tar.xz")
  [ "$(cat "$WORK/bundle/$1/.unpacked" 2>/dev/null)" = "$key" ] && return 0
  rm -rf "$WORK/bundle/$1"
  mkdir -p "$WORK/bundle/$1"
  "$PY" -c "
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    try:
        t.extractall(sys.argv[2], filter='data')
    except TypeError:  # a Python without extraction filters
        t.extractall(sys.argv[2])
" "$BUNDLE/$1.tar.xz" "$WORK/bundle/$1" && echo "$key" >"$WORK/bundle/$1/.unpacked"
}
site_dirs() { "$PY" -c "import sysconfig; p = sysconfig.get_paths(); print(p['purelib']); print(p['platlib'])" | uniq; }
REF_PY=$WORK/ref-venv/bin/python

stage_install() {
  local t0=$SECONDS parts=() missing=() part
  for part in base genesis quadrants133 upstream googletest; do
    if unpack "$part"; then parts+=("$part"); else missing+=("$part"); fi
  done
  headline "unpacked ${parts[*]:-nothing}${missing[*]:+; not in the bundle: ${missing[*]}} in $((SECONDS - t0)) s"
  if [ -d "$WORK/bundle/base/wheels" ] && ! "$PY" -c "import array_api_compat" 2>/dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile "$WORK/bundle/base/wheels/"*.whl || return 1
  fi
  if [ -d "$WORK/bundle/genesis/wheels" ]; then
    rm -rf "$WORK/genesis-site"
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$WORK/genesis-site" \
      "$WORK/bundle/genesis/wheels/"*.whl 2>&1 | grep -v "^WARNING: Target directory" || true
    [ -d "$WORK/bundle/genesis/stubs" ] && cp -r "$WORK/bundle/genesis/stubs/." "$WORK/genesis-site/"
  fi
  if [ -d "$WORK/bundle/quadrants133/wheels" ]; then
    rm -rf "$WORK/ref-site" "$WORK/ref-venv"
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$WORK/ref-site" \
      "$WORK/bundle/quadrants133/wheels/"*.whl || return 1
    "$PY" -m venv --without-pip "$WORK/ref-venv" || return 1
    { echo "$WORK/ref-site"; echo "$WORK/genesis-site"; site_dirs; } \
      >"$("$REF_PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/qd_reference.pth"
  fi
  headline "installed in $((SECONDS - t0)) s"
  # Every bundled top-level module imports (genesis needs torch; the stand-ins are not imported).
  local imports
  imports=$("$PY" - "$WORK" "$LOGS/install.imports.json" <<'EOF'
import concurrent.futures, json, os, subprocess, sys
work, out = sys.argv[1], sys.argv[2]
site = os.path.join(work, "genesis-site")
results = {}
def check(label, python, code, path=None):
    env = dict(os.environ, PYTHONPATH=path) if path else {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
    results[label] = "ok" + (": " + proc.stdout.strip() if proc.stdout.strip() else "") if proc.returncode == 0 \
        else (proc.stderr.strip().splitlines() or ["failed"])[-1]
if os.path.isdir(site):
    stubs = {n for n in os.listdir(site) if os.path.isfile(os.path.join(site, n, "__init__.py")) and
             "__stub__ = True" in open(os.path.join(site, n, "__init__.py")).read()}
    names = sorted({n.split(".")[0] for n in os.listdir(site) if n not in stubs and n != "genesis"
                    and not n.startswith("_") and (n.endswith(".py") or ".cpython-" in n or n.endswith(".abi3.so")
                                                   or os.path.isfile(os.path.join(site, n, "__init__.py")))})
    with concurrent.futures.ThreadPoolExecutor(8) as pool:  # one interpreter per module, eight at a time
        list(pool.map(lambda name: check(name, sys.executable, f"import {name}", site), names))
    results["stand-ins"] = sorted(stubs)
ref = os.path.join(work, "ref-venv", "bin", "python")
if os.path.exists(ref):
    check("quadrants 1.3.3 (ref-venv)", ref, "import quadrants, os; print(quadrants.__version__, "
          "os.path.dirname(quadrants.__file__))")
    # Genesis imports quadrants and torch: ours is built by the next stage, so its import is checked on 1.3.3.
    check("genesis (ref-venv, on 1.3.3)", ref, "import genesis; print(genesis.__version__)")
results = dict(sorted(results.items()))
json.dump(results, open(out, "w"), indent=1)
bad = {k: v for k, v in results.items() if k != "stand-ins" and not v.startswith("ok")}
print(f"imports: {len(results) - len(bad) - ('stand-ins' in results)} ok, {len(bad)} failed" +
      "".join(f"\n  {k}: {v}" for k, v in bad.items()))
EOF
)
  headline "$imports"
  emit install status=done seconds=$((SECONDS - t0)) parts="$(json_list "${parts[@]}")" \
    missing="$(json_list "${missing[@]}")" imports=@"$LOGS/install.imports.json"
}

stage_build() {
  local t0=$SECONDS status
  CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$PY" -m pip install -q --no-build-isolation --no-deps -e . 2>&1 \
    | grep -v "^WARNING: Location"
  status=${PIPESTATUS[0]}
  local cuda
  cuda=$("$PY" -c "import quadrants.runtime._core as c
print('cuda_status: %r, nvrtc: %s' % (c.cuda_status(), c.nvrtc_available()))" 2>&1 | tail -1)
  headline "pip install -e . exit $status in $((SECONDS - t0)) s; $cuda"
  emit build status="$([ "$status" = 0 ] && echo done || echo failed)" seconds=$((SECONDS - t0)) device="$cuda"
  return "$status"
}

cpp_tests() {  # cpp_tests SECONDS: the C++ tests on the GPU, or as ctest runs them on the emulation: all of them
  # with the real NVRTC (the Cuda* ones skip without a GPU), then the Cuda* ones on the emulated driver and NVRTC
  if [ "$EMULATION" = 1 ]; then
    timeout "$1" env -u QD_CUDA_DRIVER_PATH -u QD_NVRTC_PATH build/gpu-cpp/qd_cpp_tests || return
    timeout "$1" build/gpu-cpp/qd_cpp_tests --gtest_filter='Cuda*'
  else
    timeout "$1" build/gpu-cpp/qd_cpp_tests
  fi
}

stage_suites() {
  local t0=$SECONDS budget=$(( ${STAGE_CAP:-120} - 15 )) cpp_pid=""
  local gtest=${GTEST_PREFIX:-}
  if [ -z "$gtest" ] && [ -d "$WORK/bundle/googletest" ]; then
    gtest=$WORK/gtest
    [ -f "$gtest/.built" ] || { cmake -S "$WORK/bundle/googletest" -B "$WORK/gtest-build" -DBUILD_GMOCK=OFF \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$gtest" >"$LOGS/suites.gtest.log" 2>&1 \
      && cmake --build "$WORK/gtest-build" -j "$JOBS" >>"$LOGS/suites.gtest.log" 2>&1 \
      && cmake --install "$WORK/gtest-build" >>"$LOGS/suites.gtest.log" 2>&1 && touch "$gtest/.built"; }
  fi
  if [ -n "$gtest" ] && [ -n "$(find "$gtest" -name GTestConfig.cmake 2>/dev/null | head -1)" ]; then
    local gtest_dir
    gtest_dir=$(dirname "$(find "$gtest" -name GTestConfig.cmake | head -1)")
    # In the background, beside pytest: the C++ build competes for cores, but nothing here is timed.
    { cmake -S . -B build/gpu-cpp -DQD_BUILD_TESTS=ON -DQD_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
        -DGTest_DIR="$gtest_dir" && cmake --build build/gpu-cpp -j "$JOBS" --target qd_cpp_tests \
        && cpp_tests "$((budget - (SECONDS - t0)))"; echo "exit $?"; } >"$LOGS/suites.cpp.log" 2>&1 &
    cpp_pid=$!
  else
    echo "no GoogleTest (bundle part googletest, or GTEST_PREFIX): C++ tests not run" >"$LOGS/suites.cpp.log"
  fi
  export QD_TEST_ARCH=cuda QD_CACHE_DIR
  QD_CACHE_DIR=$(mktemp -d)
  # -v: each outcome is logged as it comes; SIGINT at the budget still prints the failures seen so far.
  # shellcheck disable=SC2086
  local jobs=${PYTEST_JOBS:-$((JOBS / 2 > 0 ? JOBS / 2 : 1))}
  timeout -s INT -k 20 "$((budget - (SECONDS - t0)))" "$PY" -m pytest -v -n "$jobs" \
    -p no:cacheprovider --timeout 90 -rfE --tb=short -W ignore::RuntimeWarning \
    ${PYTEST_ARGS:-tests/python} >"$LOGS/suites.pytest.log" 2>&1
  local pytest_exit=$?
  [ -n "$cpp_pid" ] && wait "$cpp_pid"
  local py_line cpp_line
  py_line=$(grep -E "^=+ .*([0-9]+ (passed|failed|error))" "$LOGS/suites.pytest.log" | tail -1)
  cpp_line=$(grep -E "^\[  (PASSED|FAILED)  \]|^exit|no GoogleTest" "$LOGS/suites.cpp.log" | tr '\n' ' ')
  headline "python (exit $pytest_exit): ${py_line:-no summary line (see suites.pytest.log)}"
  headline "c++: ${cpp_line:-no result (see suites.cpp.log)}"
  grep -E "^(FAILED|ERROR) " "$LOGS/suites.pytest.log" | head -40 >>"$LOGS/suites.headline"
  emit suites status=done seconds=$((SECONDS - t0)) pytest_exit=$pytest_exit python="$py_line" cpp="$cpp_line" \
    failures="$(mapfile -t lines < <(grep -E "^(FAILED|ERROR) " "$LOGS/suites.pytest.log"); json_list "${lines[@]}")"
}

stage_upstream() {
  local t0=$SECONDS deadline=$((SECONDS + ${STAGE_CAP:-120} - 15)) files
  local tests_tar=$BUNDLE/upstream.tar.xz
  [ -f "$tests_tar" ] || { headline "no upstream part in the bundle"; emit upstream status="no bundle"; return 1; }
  if [ -n "${UPSTREAM_FILES:-}" ]; then
    files=${UPSTREAM_FILES//,/ }
  elif [ -s "$BUNDLE/upstream_gpu_files.txt" ]; then
    files=$(cat "$BUNDLE/upstream_gpu_files.txt")
  else
    files=$("$PY" scripts/upstream_gpu_files.py --repo "$tests_tar" --json "$LOGS/upstream_gpu_files.json")
  fi
  mkdir -p "$LOGS/upstream"
  export UPSTREAM_DEADLINE=$(( $(date +%s) + deadline - SECONDS )) tests_tar
  # One process per file, UPSTREAM_JOBS at a time; each file gets what is left before the deadline.
  echo "$files" | tr ' ' '\n' | grep . | xargs -P "${UPSTREAM_JOBS:-4}" -I{} bash -c '
    left=$(( UPSTREAM_DEADLINE - $(date +%s) - 5 ))
    if [ "$left" -lt 10 ]; then echo "{}: not run, out of time"; exit 0; fi
    "$PY" scripts/upstream_tests.py --arch cuda --repo "$tests_tar" --file-timeout "$left" --test-timeout 60 \
      --causes 0 --json "$LOGS/upstream/{}.json" {} 2>&1 | grep -E "^\[ *[0-9.]+ s\]|warning"' 
  "$PY" - "$LOGS/upstream" "$LOGS/upstream.rows.json" $files <<'EOF' | tee -a "$LOGS/upstream.headline"
import collections, json, os, sys
folder, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
total, rows, causes = collections.Counter(), {}, collections.Counter()
for name in names:
    path = os.path.join(folder, name + ".json")
    if not os.path.exists(path):
        rows[name] = "not run (out of time)"
        continue
    for file_name, results in json.load(open(path)).items():
        counts = collections.Counter(r["outcome"] for r in results)
        total.update(counts)
        rows[file_name] = dict(counts)
        for r in results:
            if r["outcome"] in ("failed", "error"):
                causes[r.get("message", "")[:150]] += 1
json.dump({"total": dict(total), "files": rows, "top_causes": causes.most_common(15)}, open(out, "w"), indent=1)
ran = sum(total.values())
print(f"upstream GPU-only files: {len([r for r in rows.values() if isinstance(r, dict)])} of {len(names)} run; "
      f"{total['passed']} passed, {total['failed']} failed, {total['error']} errors, {total['skipped']} skipped "
      f"of {ran} tests")
for message, count in causes.most_common(5):
    print(f"  {count:>4}  {message}")
EOF
  emit upstream status=done seconds=$((SECONDS - t0)) result=@"$LOGS/upstream.rows.json"
}

# genesis_run ours|ref SCENE TIMEOUT: one scene on one quadrants, into $LOGS/genesis/<which>.<scene>.json. Every
# cache is the quadrants' own: kernels (XDG_CACHE_HOME holds Genesis', ours' and 1.3.3's), the driver's PTX JIT,
# numba's (Genesis caches its numba functions) and Python's bytecode, so the first run of each starts cold.
genesis_run() {
  local which=$1 scene=$2 limit=$3 cache=$WORK/cache-$1
  local run=(env -u QD_CACHE_DIR -u QD_TEST_ARCH -u PYTHONPATH XDG_CACHE_HOME="$cache" CUDA_CACHE_PATH="$cache/nv"
    NUMBA_CACHE_DIR="$cache/numba" PYTHONPYCACHEPREFIX="$cache/pycache")
  if [ "$which" = ours ]; then run+=(PYTHONPATH="$WORK/genesis-site" "$PY"); else run+=("$REF_PY"); fi
  mkdir -p "$cache" "$LOGS/genesis"
  (cd "$WORK" && "${run[@]}" "$REPO/scripts/genesis_gpu_scenes.py" --scenes "$scene" --n-envs "${GENESIS_N_ENVS:-1,4096}" \
    --steps "${GENESIS_STEPS:-100}" --backend "${GENESIS_BACKEND:-gpu}" --scene-timeout "$limit" \
    --json "$LOGS/genesis/$which.$scene.json")
}

stage_genesis() {
  local t0=$SECONDS end=$((SECONDS + ${STAGE_CAP:-300} - 10)) scene which left scenes=${GENESIS_SCENES:-rigid,franka,go2}
  if [ ! -d "$WORK/genesis-site/genesis" ]; then
    headline "Genesis is not installed (stage install, bundle part genesis)"
    emit genesis status="no bundle"
    return 1
  fi
  [ -x "$REF_PY" ] || headline "no quadrants 1.3.3 venv (bundle part quadrants133): ours only"
  rm -rf "$WORK/cache-ours" "$WORK/cache-ref" "$LOGS/genesis"  # both quadrants start cold
  # Scene by scene, ours then 1.3.3, so that what finishes before the cap comes in pairs.
  for scene in ${scenes//,/ }; do
    for which in ours ref; do
      [ "$which" = ref ] && [ ! -x "$REF_PY" ] && continue
      left=$((end - SECONDS))
      [ "$left" -ge 30 ] || { headline "$which $scene: not run, out of time"; continue; }
      [ "$left" -gt "${GENESIS_SCENE_TIMEOUT:-150}" ] && left=${GENESIS_SCENE_TIMEOUT:-150}
      echo "== $which: $scene (at most $left s)"
      genesis_run "$which" "$scene" "$left"
    done
  done
  "$PY" - "$LOGS/genesis" ${scenes//,/ } <<'EOF'
import json, os, sys
folder, scenes = sys.argv[1], sys.argv[2:]
for which in ("ours", "ref"):
    merged = {"scenes": {}}
    for scene in scenes:  # in the order they ran
        path = os.path.join(folder, f"{which}.{scene}.json")
        if os.path.exists(path):
            part = json.load(open(path))
            merged["quadrants"] = part.get("quadrants")
            merged["scenes"].update(part["scenes"])
    json.dump(merged, open(os.path.join(folder, f"{which}.json"), "w"))
EOF
  # A stand-in (gpu_bundle.sh STUBS) that was used would have failed its scene; this names it.
  local stub_uses
  stub_uses=$(grep -c "GPU-BUNDLE-STUB-USED" "$LOGS/genesis.log")
  headline "bundle stand-ins used: $stub_uses$([ "$stub_uses" = 0 ] || grep -m3 "GPU-BUNDLE-STUB-USED" "$LOGS/genesis.log")"
  if [ -x "$REF_PY" ]; then
    "$PY" scripts/genesis_gpu_scenes.py --compare "$LOGS/genesis/ours.json" "$LOGS/genesis/ref.json" \
      --compare-json "$LOGS/genesis.rows.json" | tee -a "$LOGS/genesis.headline"
  fi
  emit genesis status=done seconds=$((SECONDS - t0)) stand_ins_used="$stub_uses" rows=@"$LOGS/genesis.rows.json" \
    backend="${GENESIS_BACKEND:-gpu}" n_envs="\"${GENESIS_N_ENVS:-1,4096}\""
}

stage_bench() {
  local t0=$SECONDS half=$(( (${STAGE_CAP:-80} - 10) / 2 ))
  if [ "$EMULATION" = 1 ]; then
    headline "skipped on the emulation: bench_gpu.py needs torch with CUDA"
    emit bench status=skipped
    return 0
  fi
  timeout "$half" "$PY" benchmarks/bench_gpu.py --json "$LOGS/bench.ours.json"
  [ -x "$REF_PY" ] && (cd "$WORK" && timeout "$half" "$REF_PY" "$REPO/benchmarks/bench_gpu.py" --json "$LOGS/bench.ref.json")
  if [ -f "$LOGS/bench.ours.json" ] && [ -f "$LOGS/bench.ref.json" ]; then
    "$PY" benchmarks/bench_gpu.py --compare "$LOGS/bench.ours.json" "$LOGS/bench.ref.json" | tee -a "$LOGS/bench.headline"
  fi
  emit bench status=done seconds=$((SECONDS - t0)) ours=@"$LOGS/bench.ours.json" ref=@"$LOGS/bench.ref.json"
}

if [ "${1:-}" = --stage ]; then  # internal: one stage's body (the driver below runs it under timeout)
  STAGE=$2
  "stage_$2"
  exit $?
fi

# ---- driver ----
BUDGET_S=${BUDGET_S:-570}
STAGES=${STAGES:-install,build,suites+upstream,genesis,bench}
declare -A CAPS=([install]=90 [build]=150 [suites]=120 [upstream]=120 [genesis]=300 [bench]=80)
for group in ${STAGES//,/ }; do
  for s in ${group//+/ }; do
    [ -n "${CAPS[$s]:-}" ] || { echo "gpu_check.sh: unknown stage $s (stages: ${!CAPS[*]})" >&2; exit 2; }
  done
done
start=$SECONDS
SUMMARY=$OUT/summary.txt
{
  echo "== gpu_check $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null) stages $STAGES budget ${BUDGET_S}s"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$PY" -c "import sys, torch
print('python', sys.version.split()[0], 'torch', torch.__version__, torch.version.cuda)" 2>&1 | tail -1
  [ "$EMULATION" = 1 ] && echo "rehearsal: CUDA on the driver emulation, Genesis on ${GENESIS_BACKEND}"
} | tee "$SUMMARY"

collect() {  # results.json and logs.tar.gz from what the stages wrote so far
  "$PY" - "$LOGS" "$OUT/results.json" <<'EOF'
import glob, json, os, sys
logs, out = sys.argv[1], sys.argv[2]
results = {}
for path in sorted(glob.glob(os.path.join(logs, "*.json"))):
    name = os.path.basename(path)[:-5]
    if "." in name:
        continue  # detail files stay in logs.tar.gz
    try:
        results[name] = json.load(open(path))
    except ValueError as exc:
        results[name] = {"status": f"unreadable JSON: {exc}"}
json.dump(results, open(out, "w"), indent=1)
EOF
  tar -C "$LOGS" -czf "$OUT/logs.tar.gz.part" . && mv "$OUT/logs.tar.gz.part" "$OUT/logs.tar.gz"
}

run_stage() {  # run_stage NAME CAP: the body under timeout; a JSON saying why, when the body wrote none
  local name=$1 cap=$2 t0=$SECONDS rc
  rm -f "$LOGS/$name.json" "$LOGS/$name.headline"
  STAGE_CAP=$cap timeout -k 10 "$cap" bash "$0" --stage "$name" >"$LOGS/$name.log" 2>&1
  rc=$?
  if [ ! -f "$LOGS/$name.json" ]; then
    local why=failed
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && why="timeout after ${cap} s"
    STAGE=$name emit "$name" status="$why" rc=$rc seconds=$((SECONDS - t0))
    echo "$name: $why (exit $rc); last lines of its log:" >>"$LOGS/$name.headline"
    tail -5 "$LOGS/$name.log" >>"$LOGS/$name.headline"
  fi
  return $rc
}

for group in ${STAGES//,/ }; do
  left=$((BUDGET_S - (SECONDS - start) - 10))
  echo "== $group ($(date +%T), ${left} s of the budget left)" | tee -a "$SUMMARY"
  pids=()
  for s in ${group//+/ }; do
    cap=${CAPS[$s]}
    override=CAP_$s
    cap=${!override:-$cap}
    [ "$cap" -gt "$left" ] && cap=$left
    if [ "$cap" -lt 15 ]; then
      STAGE=$s emit "$s" status="skipped: out of time"
      echo "$s: skipped, out of time" >"$LOGS/$s.headline"
      continue
    fi
    run_stage "$s" "$cap" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  for s in ${group//+/ }; do
    { echo "-- $s: $("$PY" -c "import json, sys
r = json.load(open(sys.argv[1]))
print(r.get('status'), str(r.get('seconds', '')) + ' s')" "$LOGS/$s.json" 2>/dev/null)"
      cat "$LOGS/$s.headline" 2>/dev/null; } | tee -a "$SUMMARY"
  done
  collect
done
echo "== done in $((SECONDS - start)) s; $OUT: summary.txt, results.json, logs.tar.gz" | tee -a "$SUMMARY"
collect
exit
}
