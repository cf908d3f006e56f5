# tests/python/test_kernel_cache_faults.py: the kernel cache under concurrency and faults (issue 34).
#
# Threads and processes sharing one cache; the cache directory made read-only, deleted, or its disk full
# while a program runs; eviction by one process while another loads. Each scenario runs fresh processes.
# Read-only and full directories are real: a tmpfs (of a chosen size, remounted read-only) mounted at the
# cache directory in a private mount namespace (`unshare`, as root or in a user namespace); where no
# namespace can be made those tests skip, and the C++ tests (test_jit_disk_cache.cpp) still fail a store
# part way with a file size limit.
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

pytestmark = pytest.mark.cpu_only  # the CPU library cache; the CUDA image cache stores through the same code

# QD_CHECK_CUDA=0: the test command's NVRTC check would add CUDA images to the cache; QD_SPARE_COMPILER=0 where
# a compiler wrapper must run at a known moment (a spare compiler starts ahead of the kernel it compiles).
BASE_ENV = {**os.environ, "QD_CHECK_CUDA": "0"}
WARNING = "quadrants: warning"


def write_script(tmp_path, name, code):
    path = tmp_path / name
    (tmp_path / (name + ".tmp")).write_text(textwrap.dedent(code))
    (tmp_path / (name + ".tmp")).replace(path)  # never truncated under a process starting from it
    return path


def finish(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{out}\n{err}"
    return out, err


def check_entries(cache):
    """Every library in the cache is whole: its manifest names its size and SHA-256; no temporaries are left."""
    libraries = list(cache.glob("*.so"))
    for library in libraries:
        manifest = cache / (library.name + ".manifest")
        if not manifest.exists():
            continue  # evicted (manifest first) or being stored: never loaded without one
        fields = dict(line.split(" ", 1) for line in manifest.read_text().splitlines()[1:])
        data = library.read_bytes()
        assert int(fields["size"]) == len(data) and fields["sha256"] == hashlib.sha256(data).hexdigest(), library
    assert not [p.name for p in cache.iterdir() if ".tmp-" in p.name or p.name.startswith("work-")]
    return libraries


# ---- 8 threads in each of 4 processes ----

THREADS_AND_PROCESSES = """
    import sys, threading
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)
    proc, salt = int(sys.argv[1]), int(sys.argv[2])

    def make(k):
        @qd.kernel
        def add(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(a.shape[0]):
                a[i] += qd.static(k)
        return add

    # (kernel, what it adds): one kernel every thread of every process runs, one per thread index (the same
    # in every process), and one per process and salt (new in each wave).
    shared = (make(1000 + salt), 1000 + salt)
    per_thread = [(make(t + salt), t + salt) for t in range(8)]
    per_process = (make(100 * (proc + 1) + salt), 100 * (proc + 1) + salt)
    start, errors = threading.Barrier(8), []

    def work(t):
        start.wait()
        for kernel, k in (shared, per_thread[t], per_process, shared):
            a = np.zeros(5, dtype=np.int32)
            kernel(a)
            if a.tolist() != [k] * 5:
                errors.append((t, k, a.tolist()))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("ok" if not errors else errors)
"""


def test_eight_threads_in_four_processes_compile_and_load_one_cache(tmp_path):
    """Wave 1 compiles into an empty cache; wave 2 loads those entries while compiling new ones (a new salt for
    the per-process kernels only would change nothing else, so the salt changes all: half the waves' kernels are
    shared through the cache). Every result is right and every entry left is whole."""
    script = write_script(tmp_path, "threads.py", THREADS_AND_PROCESSES)
    env = {**BASE_ENV, "QD_CACHE_DIR": str(tmp_path / "cache")}
    for salt in (0, 4):  # kernels 4..7 of wave 1 are kernels 0..3 of wave 2
        procs = [subprocess.Popen([sys.executable, str(script), str(p), str(salt)], env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for p in range(4)]
        for proc in procs:
            out, err = finish(proc)
            assert out.strip() == "ok", out + err
            assert WARNING not in err, err
    libraries = check_entries(tmp_path / "cache")
    # Wave 1: 1 + 8 + 4 kernels; wave 2 adds its shared kernel, threads 4..7's (k = 8..11) and 4 per-process ones.
    assert len(libraries) == 13 + 1 + 4 + 4, sorted(p.name for p in libraries)


# ---- eviction while another process loads ----

LOADER = """
    import os, sys
    import numpy as np
    import quadrants as qd

    def make(k):
        @qd.kernel
        def load_me(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(a.shape[0]):
                a[i] += qd.static(k)
        return load_me

    rounds = 0
    while not os.path.exists(sys.argv[1]) or rounds < 3:  # until the evicting process is done
        # qd.init() drops every loaded kernel, and the kernels are made anew: each round reads the entries again.
        qd.init(arch=qd.cpu)
        for kernel, k in [(make(k), k) for k in range(1, 5)]:
            a = np.zeros(3, dtype=np.int32)
            kernel(a)
            assert a.tolist() == [k] * 3, (k, a)
        rounds += 1
    print("ok", rounds)
"""

EVICTOR = """
    import sys
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)

    for k in range(1, 13):
        @qd.kernel
        def evict(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(a.shape[0]):
                a[i] += qd.static(k) * 10
        a = np.zeros(3, dtype=np.int32)
        evict(a)
        assert a.tolist() == [10 * k] * 3
    open(sys.argv[1], "w").close()
    print("ok")
"""


def test_eviction_by_one_process_while_another_loads(tmp_path):
    """The evicting process's cap holds about one entry, so each of its stores removes what the loader is reading
    (QD_CACHE_MAX_MB); the loader re-reads its four entries every round and finds them whole or gone (then it
    recompiles), never half there."""
    loader, evictor = write_script(tmp_path, "loader.py", LOADER), write_script(tmp_path, "evictor.py", EVICTOR)
    done = tmp_path / "evictor-done"
    env = {**BASE_ENV, "QD_CACHE_DIR": str(tmp_path / "cache")}
    (tmp_path / "warm").write_text("")  # three rounds, then the four entries exist
    finish(subprocess.Popen([sys.executable, str(loader), str(tmp_path / "warm")], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    loading = subprocess.Popen([sys.executable, str(loader), str(done)], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    evicting = subprocess.Popen([sys.executable, str(evictor), str(done)], env={**env, "QD_CACHE_MAX_MB": "0.03"},
                                text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = finish(evicting)
    assert out.strip() == "ok", err
    out, err = finish(loading)
    assert out.startswith("ok"), err
    check_entries(tmp_path / "cache")
    assert len(list((tmp_path / "cache").glob("evict-*.so.manifest"))) <= 2  # the cap did evict


# ---- the cache directory deleted while the compiler runs ----

def compiler_wrapper(tmp_path, action):
    """A CXX that runs `action` (shell) once, when it is first asked to compile (not for --version), then c++."""
    real = shutil.which("c++")
    if real is None:
        pytest.skip("no c++ in PATH to wrap")
    marker = tmp_path / "acted"
    wrapper = tmp_path / "cxx-wrapper"
    wrapper.write_text(f'#!/bin/sh\ncase " $* " in *" -o "*) if [ ! -e "{marker}" ]; then : > "{marker}"; {action}; '
                       f'fi;; esac\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


TWO_KERNELS = """
    import os, sys
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)

    @qd.kernel
    def add_one(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 1

    @qd.kernel
    def add_two(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 2

    a = np.zeros(4, dtype=np.int32)
    add_one(a)
    if len(sys.argv) > 1:
        os.system(sys.argv[1])  # the fault, between the two kernels
    add_two(a)
    add_one(a)
    cache = os.environ["QD_CACHE_DIR"]
    print(a.tolist(), sorted(n.split("-")[0] for n in os.listdir(cache) if n.endswith(".so.manifest")))
"""


def test_cache_directory_deleted_while_the_compiler_runs(tmp_path):
    """The work directory vanishes under the compiler: the kernel is compiled again in a private directory, with
    one warning; the next kernel finds the cache directory made again and is stored there."""
    cache = tmp_path / "cache"
    script = write_script(tmp_path, "two.py", TWO_KERNELS)
    env = {**BASE_ENV, "QD_CACHE_DIR": str(cache), "QD_SPARE_COMPILER": "0",
           "CXX": compiler_wrapper(tmp_path, f'rm -rf "{cache}"')}
    out, err = finish(subprocess.Popen([sys.executable, str(script)], env=env, text=True, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE))
    assert out.strip() == "[4, 4, 4, 4] ['add_two']", err  # add_one ran uncached, twice; add_two was stored
    assert err.count(WARNING) == 1 and "is not writable" in err, err
    check_entries(cache)


# ---- read-only and full cache directories: a tmpfs in a private mount namespace ----

def namespace_prefix():
    """The command prefix that runs a command in a private mount namespace where it may mount, or None."""
    if shutil.which("unshare") is None:
        return None
    prefix = ["unshare", "-m", "--propagation", "private"]
    if os.geteuid() != 0:
        prefix[1:1] = ["-U", "-r"]  # a user namespace in which we are root (where the kernel allows it)
    probe = tempfile.mkdtemp(prefix="qd-ns-probe-")
    try:
        done = subprocess.run(prefix + ["sh", "-c", f'mount -t tmpfs -o size=64k tmpfs "{probe}"'],
                              capture_output=True)
    finally:
        os.rmdir(probe)
    return prefix if done.returncode == 0 else None


NAMESPACE = namespace_prefix()
needs_namespace = pytest.mark.skipif(NAMESPACE is None, reason="cannot mount a tmpfs in a private mount namespace "
                                     "here (unshare -m, or -U -r -m, is not permitted)")


def run_on_tmpfs(tmp_path, size_kb, script, *args, **env):
    """Runs the script with a fresh tmpfs of size_kb as its cache directory (gone when it ends)."""
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    shell = f'mount -t tmpfs -o size={size_kb}k,mode=0700 tmpfs "$0" && exec "$@"'
    command = NAMESPACE + ["sh", "-c", shell, str(cache), sys.executable, str(script), *args]
    proc = subprocess.Popen(command, env={**BASE_ENV, "QD_CACHE_DIR": str(cache), **env}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return finish(proc)


def read_only(directory):
    """Shell commands making a mounted directory read-only: a read-only bind mount over it (remounting the tmpfs
    itself read-only is refused while a removed file on it is still open)."""
    return f'mount --bind "{directory}" "{directory}" && mount -o remount,bind,ro "{directory}"'


@needs_namespace
def test_cache_made_read_only_between_kernels(tmp_path):
    cache = tmp_path / "cache"
    script = write_script(tmp_path, "two.py", TWO_KERNELS)
    out, err = run_on_tmpfs(tmp_path, 4096, script, read_only(cache))
    assert out.strip() == "[4, 4, 4, 4] ['add_one']", err  # add_one stored before, add_two compiled privately
    assert err.count(WARNING) == 1 and "is not writable" in err, err


@needs_namespace
def test_cache_made_read_only_while_the_compiler_runs(tmp_path):
    cache = tmp_path / "cache"
    script = write_script(tmp_path, "two.py", TWO_KERNELS)
    wrapper = compiler_wrapper(tmp_path, read_only(cache))
    out, err = run_on_tmpfs(tmp_path, 4096, script, CXX=wrapper, QD_SPARE_COMPILER="0")
    assert out.strip() == "[4, 4, 4, 4] []", err  # nothing could be stored after the first compile began
    assert err.count(WARNING) == 1 and "is not writable" in err, err


DISK_FULL = """
    import hashlib, os, subprocess, sys
    import numpy as np
    import quadrants as qd

    cache, free = os.environ["QD_CACHE_DIR"], int(sys.argv[1])

    def make(k):
        @qd.kernel
        def fill_me(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(a.shape[0]):
                a[i] += qd.static(k)
        return fill_me

    def run_all():
        for k in (1, 2):
            a = np.zeros(3, dtype=np.int32)
            make(k)(a)
            assert a.tolist() == [k] * 3, (k, a)

    if sys.argv[2] == "full":
        # Fill the disk to `free` bytes, then compile: some write into the cache fails part way.
        fs = os.statvfs(cache)
        with open(os.path.join(cache, "filler"), "wb") as f:
            f.write(b"x" * max(0, fs.f_bavail * fs.f_frsize - free))
        qd.init(arch=qd.cpu)
        run_all()
        os.unlink(os.path.join(cache, "filler"))
        # A new process, with room now: whatever the full disk left must be recompiled or whole, never half.
        done = subprocess.run([sys.executable, sys.argv[0], "0", "again"], capture_output=True, text=True)
        sys.stderr.write(done.stderr)
        assert done.returncode == 0, done.stdout + done.stderr
        print(done.stdout.strip())
    else:
        qd.init(arch=qd.cpu)
        run_all()
        for name in os.listdir(cache):
            if name.endswith(".so"):
                manifest = os.path.join(cache, name + ".manifest")
                if os.path.exists(manifest):
                    text = open(manifest).read()
                    assert hashlib.sha256(open(os.path.join(cache, name), "rb").read()).hexdigest() in text, name
        print("ok", len([n for n in os.listdir(cache) if n.endswith(".so.manifest")]))
"""


@needs_namespace
@pytest.mark.parametrize("free_kb", [0, 16, 48, 72, 96])
def test_disk_full_during_a_cache_write(tmp_path, free_kb):
    """A kernel's compile and store write about 100 KB into the cache (its ~44 KB source, then object and library of
    ~16 KB each, then the stored library and its manifest): each size of free room fails a different one of those
    writes, part way. The program goes on (at most one warning), and the next process, with room again, loads
    only whole entries (or recompiles) and stores both kernels."""
    script = write_script(tmp_path, "full.py", DISK_FULL)
    out, err = run_on_tmpfs(tmp_path, 4096, script, str(free_kb * 1024), "full")
    assert out.strip() == "ok 2", err
    assert err.count(WARNING) <= 1, err
    if free_kb < 40:  # not even the source fits: the compile must have moved to a private directory
        assert err.count(WARNING) == 1 and "No space left on device" in err, err
