# tests/python/test_tiered_compile.py: tiered compile (issue 31): a kernel missing from the disk cache runs a quick
# build first and its optimized build, compiled in the background, is swapped in between two launches.
#
# Each scenario runs in a fresh process with its own cache directory and QD_TIERED_COMPILE_BYTES=0 (so that these
# small kernels are tiered), as a user's cold run would. A CXX wrapper stands in for a compiler whose optimized
# (-O3) build fails or is slow, so that failures and exit are tested without a real slow kernel.
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.cpu_only  # CUDA kernels (NVRTC) are never tiered

TIME_LIMIT_S = 180

KERNELS = """
import hashlib, json, os, sys, time
import numpy as np
import quadrants as qd
from quadrants.runtime import _core

qd.init(arch=qd.cpu, fast_math=os.environ.get("FAST_MATH") == "1")

@qd.kernel
def mix(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        v = x[i]
        s = 0.0
        for j in range(64):  # a serial sum: -O3 may not reorder it without fast_math
            s += x[(i + j) % x.shape[0]] * x[j] + 0.1
        y[i] = v * 1.1 + y[i] * 0.7 + qd.sin(v) * qd.exp(-v) + qd.sqrt(v + 2.0) / (v + 3.0) + s

@qd.kernel
def scale(x: qd.types.ndarray(dtype=qd.f64, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = x[i] * 1.0000001 + 0.3

def run_mix():
    x = np.linspace(0.01, 7.0, 4097, dtype=np.float32)
    y = np.cos(x).astype(np.float32)
    mix(x, y)
    return hashlib.sha256(y.tobytes()).hexdigest()

def run_scale():
    x = np.linspace(-3.0, 3.0, 1001)
    scale(x)
    return hashlib.sha256(x.tobytes()).hexdigest()

def cache_files():  # the compiled libraries' files; the kernel records' folder appears when a process ends
    folder = os.environ["QD_CACHE_DIR"]
    return sorted(f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f)))

out = {}
"""

SWAP = KERNELS + """
out["first"] = run_mix()
out["quick_after_first"] = mix._quick_builds()
out["quick_files_while_building"] = [f for f in cache_files() if "-quick-" in f]
out["done"] = _core.wait_for_optimized_builds(120)
out["second"] = run_mix()
out["quick_after_swap"] = mix._quick_builds()
out["third"] = run_mix()
out["scale"] = run_scale()
_core.wait_for_optimized_builds(120)
out["scale_after_swap"] = run_scale()
out["files"] = cache_files()
print(json.dumps(out))
"""


def run(tmp_path, code, cache="cache", **env):
    script = tmp_path / "scenario.py"  # a file, since kernels are compiled from their source
    script.write_text(textwrap.dedent(code))
    environment = {**os.environ, "QD_CACHE_DIR": str(tmp_path / cache), "QD_TIERED_COMPILE_BYTES": "0", **env}
    environment.pop("QD_TIERED_COMPILE", None)
    environment.update({k: v for k, v in env.items() if k == "QD_TIERED_COMPILE"})
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"hung for {TIME_LIMIT_S} s\n{out}\n{err}")
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{out}\n{err}"
    lines = out.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}, err, time.monotonic() - start


def compiler_wrapper(tmp_path, on_optimized):
    """A CXX that runs `on_optimized` (shell) before compiling with -O3, and is c++ otherwise."""
    path = tmp_path / "cxx-wrapper.sh"
    path.write_text(f"""#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = "-O3" ]; then
    {on_optimized}
  fi
done
exec c++ "$@"
""")
    path.chmod(0o755)
    return str(path)


def untiered(tmp_path):
    result, _, _ = run(tmp_path, SWAP, cache="untiered", QD_TIERED_COMPILE="0")
    return result


def test_swap_between_launches_gives_identical_bits_and_caches_the_optimized_build(tmp_path):
    result, err, _ = run(tmp_path, SWAP)
    assert result["quick_after_first"] == 1, "the first launch ran the optimized build: nothing was tiered"
    assert result["quick_files_while_building"], "the quick build was not cached for a process started meanwhile"
    assert result["done"] is True
    assert result["quick_after_swap"] == 0, "the optimized build was not swapped in"
    assert result["first"] == result["second"] == result["third"], "the swap changed the results"
    assert result["scale"] == result["scale_after_swap"]
    assert not [f for f in result["files"] if "-quick-" in f], "the quick entry outlived the optimized one"
    reference = untiered(tmp_path)
    assert reference["quick_after_first"] == 0
    assert (result["first"], result["scale"]) == (reference["first"], reference["scale"]), \
        "the quick build differs from an untiered (optimized) build"
    assert "warning" not in err
    # The next process loads the optimized build from the cache: nothing quick, nothing queued.
    again, _, _ = run(tmp_path, SWAP)
    assert again["quick_after_first"] == 0 and again["first"] == result["first"]
    assert again["files"] == result["files"]


def test_the_knob_turns_it_off(tmp_path):
    result, _, _ = run(tmp_path, SWAP, QD_TIERED_COMPILE="0")
    assert result["quick_after_first"] == 0
    assert result["quick_files_while_building"] == []
    assert not [f for f in result["files"] if "-quick-" in f]


def test_fast_math_kernels_are_tiered_only_when_asked(tmp_path):
    default, _, _ = run(tmp_path, SWAP, FAST_MATH="1")
    assert default["quick_after_first"] == 0  # -O1 and -O3 may round otherwise under fast_math
    asked, _, _ = run(tmp_path, SWAP, cache="all", FAST_MATH="1", QD_TIERED_COMPILE="all")
    assert asked["quick_after_first"] == 1 and asked["quick_after_swap"] == 0


def test_a_failed_optimized_build_keeps_the_quick_one_with_one_warning(tmp_path):
    cxx = compiler_wrapper(tmp_path, "echo 'simulated failure of the optimized build' >&2; exit 1")
    result, err, _ = run(tmp_path, SWAP, CXX=cxx)
    reference = untiered(tmp_path)
    assert (result["first"], result["second"], result["scale"]) == (reference["first"],) * 2 + (reference["scale"],)
    assert result["done"] is True and result["quick_after_swap"] == 0  # given up: no launch polls it any more
    assert err.count("the optimized build of kernel") == 1, err  # two kernels failed, one warning
    assert "simulated failure of the optimized build" in err
    assert [f for f in result["files"] if "-quick-" in f], "the quick build must stay cached"


def test_exit_kills_background_compilers_and_does_not_wait(tmp_path):
    pids = tmp_path / "pids"
    cxx = compiler_wrapper(tmp_path, f"echo $$ >> {pids}; sleep 100")
    code = KERNELS + """
out["first"] = run_mix()
for _ in range(200):  # until the optimized build's compiler has started
    if os.path.exists(os.environ["PIDS_FILE"]):
        break
    time.sleep(0.05)
print(json.dumps(out))
"""
    result, err, seconds = run(tmp_path, code, CXX=cxx, PIDS_FILE=str(pids))
    assert result["first"]
    assert seconds < 60, f"exit waited {seconds:.0f} s for a background compiler"
    assert "the optimized build of kernel" not in err  # a build stopped at exit is not a failure
    started = [int(p) for p in pids.read_text().split()]
    assert started
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # killed, and reaped by the exiting process (no zombie left to init)


def test_a_forked_child_finishes_the_build_itself(tmp_path):
    cxx = compiler_wrapper(tmp_path, "sleep 2")
    code = KERNELS + """
out["first"] = run_mix()
pid = os.fork()
if pid == 0:
    ok = _core.wait_for_optimized_builds(120)
    same = run_mix() == out["first"]
    swapped = mix._quick_builds() == 0
    os._exit(0 if ok and same and swapped else 1)
_, status = os.waitpid(pid, 0)
out["child"] = os.waitstatus_to_exitcode(status)
out["done"] = _core.wait_for_optimized_builds(120)
out["second"] = run_mix()
out["quick_after_swap"] = mix._quick_builds()
print(json.dumps(out))
"""
    result, err, _ = run(tmp_path, code, CXX=cxx)
    assert result["child"] == 0, err
    assert result["done"] is True and result["quick_after_swap"] == 0
    assert result["second"] == result["first"]


def test_set_tiered_compile_checks_its_argument():
    from quadrants.runtime import _core

    with pytest.raises(ValueError, match="expected 'off', 'exact' or 'all', but got 'fast'"):
        _core.set_tiered_compile("fast")
