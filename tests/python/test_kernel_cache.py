# tests/python/test_kernel_cache.py: the disk cache is verified before use and private (issue 16).
#
# Each scenario runs in a fresh process, as a user's next run would: a bad cache entry must be
# recompiled there, never loaded (a crash would show as a non-zero exit, not take pytest down).
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

import quadrants as qd
from quadrants.runtime import _core

pytestmark = pytest.mark.cpu_only  # the CPU library cache; the CUDA image cache shares its code

# The index i % n is not the loop's own, so each update stays an atomic and the two libraries differ only in a
# constant, at the same size (as plain updates of the own element, +1 and +2 may compile to other instructions).
KERNELS = textwrap.dedent("""
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)

    @qd.kernel
    def add_one(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i % a.shape[0]] += 1

    @qd.kernel
    def add_two(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i % a.shape[0]] += 2

    a = np.zeros(4, dtype=np.int32)
    add_one(a)
    b = np.zeros(4, dtype=np.int32)
    add_two(b)
    print(a.tolist(), b.tolist())
""")
_SCRIPTS = tempfile.mkdtemp(prefix="qd-cache-test-")  # kernels need a source file; never the cache dir


def script(code):
    path = os.path.join(_SCRIPTS, hashlib.sha256(code.encode()).hexdigest()[:16] + ".py")
    with open(path + ".tmp", "w") as f:
        f.write(code)
    os.replace(path + ".tmp", path)  # never truncated under a process starting from it
    return path


def run(cache_dir, code=KERNELS, env=None, **extra):
    environment = {**(os.environ if env is None else env), **extra}
    if cache_dir is not None:
        environment["QD_CACHE_DIR"] = str(cache_dir)
    done = subprocess.run([sys.executable, script(code)], env=environment, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip(), done.stderr


def libraries(cache_dir, name):
    return sorted(p for p in cache_dir.iterdir() if p.name.startswith(name + "-") and p.suffix == ".so")


@pytest.fixture
def warm_cache(tmp_path):
    out, _ = run(tmp_path)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    (one,), (two,) = libraries(tmp_path, "add_one"), libraries(tmp_path, "add_two")
    assert (tmp_path / (one.name + ".manifest")).exists()
    return tmp_path, one, two


def test_warm_cache_loads_without_compiling(warm_cache):
    cache_dir, one, _ = warm_cache
    before = one.stat().st_mtime_ns
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert one.stat().st_mtime_ns == before  # loaded, not rewritten


@pytest.mark.parametrize("damage", ["truncate", "scramble", "empty"])
def test_damaged_library_is_recompiled_not_loaded(warm_cache, damage):
    cache_dir, one, _ = warm_cache
    data = one.read_bytes()
    if damage == "truncate":
        one.write_bytes(data[: len(data) // 2])
    elif damage == "scramble":
        one.write_bytes(bytes(b ^ 0x5A for b in data[:4096]) + data[4096:])
    else:
        one.write_bytes(b"")
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert one.read_bytes() == data or len(one.read_bytes()) > 1000  # a fresh library was stored


def test_library_of_another_kernel_under_this_name_is_not_loaded(warm_cache):
    cache_dir, one, two = warm_cache
    # The other kernel's valid library, with its own manifest, in this kernel's place.
    one.write_bytes(two.read_bytes())
    (cache_dir / (one.name + ".manifest")).write_bytes((cache_dir / (two.name + ".manifest")).read_bytes())
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")  # add_one still adds one


def test_library_swapped_under_its_own_manifest_is_not_loaded(warm_cache):
    """Only the digest can tell: the other kernel's library has the same size (add_one and add_two differ in a
    constant) and loads fine, and this kernel's manifest, key included, is left as it was."""
    cache_dir, one, two = warm_cache
    assert one.stat().st_size == two.stat().st_size, "the swap must keep the size for this test to mean anything"
    one.write_bytes(two.read_bytes())
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")  # add_one still adds one


def test_library_without_manifest_is_not_loaded(warm_cache):
    cache_dir, one, two = warm_cache
    (cache_dir / (one.name + ".manifest")).unlink()
    one.write_bytes(two.read_bytes())
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")


def test_entry_writable_by_others_is_not_trusted(warm_cache):
    cache_dir, one, two = warm_cache
    one.write_bytes(two.read_bytes())
    (cache_dir / (one.name + ".manifest")).write_bytes((cache_dir / (two.name + ".manifest")).read_bytes())
    # Even an entry whose manifest vouches for it is refused when another user could have written it.
    one.chmod(0o666)
    out, _ = run(cache_dir)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")


def test_shared_writable_cache_directory_is_refused_with_a_warning(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    out, err = run(shared)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert "not using the kernel cache directory" in err and str(shared) in err
    assert not list(shared.iterdir())  # nothing was written to, or loaded from, the shared directory


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand the directory to another user")
def test_cache_directory_owned_by_another_user_is_refused(tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o755)
    os.chown(foreign, 65534, 65534)
    out, err = run(foreign)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert "not using the kernel cache directory" in err


def test_new_cache_directory_is_private(tmp_path):
    cache_dir = tmp_path / "a" / "b"
    run(cache_dir)
    assert cache_dir.stat().st_mode & 0o077 == 0


def test_without_home_the_cache_is_not_a_shared_tmp_path(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "QD_CACHE_DIR", "XDG_CACHE_HOME")}
    out, _ = run(None, KERNELS + "\nprint(qd.runtime._core.cache_dir_in_use())", env=env)
    used = out.splitlines()[-1]
    assert not used.startswith("/tmp/.cache"), used
    assert os.stat(used).st_uid == os.geteuid() and os.stat(used).st_mode & 0o022 == 0


def test_xdg_cache_home_is_honoured(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "QD_CACHE_DIR"}
    run(None, env=env, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert libraries(tmp_path / "xdg" / "quadrants", "add_one")


def test_stale_temporaries_of_killed_compiles_are_removed(tmp_path):
    run(tmp_path)
    old = time.time() - 2 * 3600
    stale_dir, stale_file = tmp_path / "work-dead01", tmp_path / "add_one-x.so.tmp-1-1"
    fresh_dir = tmp_path / "work-live01"
    for d in (stale_dir, fresh_dir):
        d.mkdir()
        (d / "k.cpp").write_text("int x;")
    stale_file.write_bytes(b"half")
    for p in (stale_dir / "k.cpp", stale_dir, stale_file):
        os.utime(p, (old, old))
    # Sweeping is part of listing the directory, which a store does when its size log is missing (a warm
    # run that only reads lists nothing): drop the log and the manifests, so the run compiles and stores.
    (tmp_path / "usage.log").unlink()
    for manifest in tmp_path.glob("*.manifest"):
        manifest.unlink()
    run(tmp_path)
    assert not stale_dir.exists() and not stale_file.exists()
    assert fresh_dir.exists()  # may belong to a compile running right now


def test_compile_killed_mid_way_leaves_no_entry_that_loads(tmp_path):
    # A "compiler" that never finishes: the process is killed while it runs.
    slow = tmp_path / "slow-cxx"
    slow.write_text("#!/bin/sh\nsleep 60\n")
    slow.chmod(0o755)
    env = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "cache"), "CXX": str(slow)}
    victim = subprocess.Popen([sys.executable, script(KERNELS)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not any((tmp_path / "cache").glob("work-*/add_one.cpp")):
        time.sleep(0.1)
    victim.kill()
    victim.wait()
    subprocess.run(["pkill", "-f", str(slow)], check=False)
    assert not libraries(tmp_path / "cache", "add_one")
    out, _ = run(tmp_path / "cache")  # the real compiler now: a normal compile, a correct result
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")


def test_compiler_command_is_split_into_words_not_run_by_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    # A shell would run the touch; as argv words it is a define that the kernel never reads.
    cxx = f"c++ '-DQD_UNUSED=1; touch {marker}'"
    out, _ = run(tmp_path / "cache", CXX=cxx)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert not marker.exists()


def test_cxx_naming_a_compiler_in_a_directory_with_blanks_is_one_path(tmp_path):
    """CXX is taken whole when it names a file, as build tools do; splitting it gave `could not start '.../with'`."""
    real = shutil.which("c++")
    if real is None:
        pytest.skip("no c++ in PATH to wrap")
    compiler = tmp_path / "with space" / "it's c++"
    compiler.parent.mkdir()
    compiler.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    compiler.chmod(0o755)
    out, _ = run(tmp_path / "cache", CXX=str(compiler))
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    # Not a file: still a command line split like a shell's (a launcher, options, quoted words).
    out, _ = run(tmp_path / "cache2", CXX=f"env {shlex.quote(str(compiler))} -DQD_UNUSED")
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")


def test_offline_cache_false_writes_nothing(tmp_path):
    code = KERNELS.replace("qd.init(arch=qd.cpu)", "qd.init(arch=qd.cpu, offline_cache=False)")
    out, _ = run(tmp_path, code)
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith("compiler-")]


def test_kernel_name_in_ir_text_must_be_an_identifier(tmp_path, monkeypatch):
    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path))
    text = "(kernel ../../escape (options) (params) (returns void) (body))"
    with pytest.raises(ValueError, match="the kernel's name must be an identifier"):
        _core.compile_kernel(text)
    assert not (tmp_path.parent.parent / "escape.so").exists()


def test_kernels_past_the_large_kernel_size_compile_with_other_flags(warm_cache):
    """QD_LARGE_KERNEL_BYTES: larger sources compile at -O1; the flags are in the cache key, so the same kernel
    under a limit below its size is a second library (and still computes the same)."""
    cache, one, _ = warm_cache
    out, _ = run(cache, QD_LARGE_KERNEL_BYTES="0")
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert len(libraries(cache, "add_one")) == 2
    run(cache, QD_LARGE_KERNEL_BYTES=str(10**9))  # above every source: the first library again, no third
    assert len(libraries(cache, "add_one")) == 2 and one in libraries(cache, "add_one")



def optimization_levels(tmp_path, **sizes):
    """The -O flags the compiler got for the first run of KERNELS (a CXX wrapper logs them), and its output."""
    log = tmp_path / "levels.log"
    wrapper = tmp_path / "cxx-levels.sh"
    wrapper.write_text(f"""#!/bin/sh
for arg in "$@"; do case "$arg" in -O*) echo "$arg" >> {log};; esac; done
exec c++ "$@"
""")
    wrapper.chmod(0o755)
    cache = tmp_path / "cache"
    cache.mkdir()
    out, _ = run(cache, CXX=str(wrapper), QD_TIERED_COMPILE="0", **sizes)
    return set(log.read_text().split()), out


def test_kernels_past_the_medium_kernel_size_compile_at_O2(tmp_path):
    """QD_MEDIUM_KERNEL_BYTES: sources past it (and up to QD_LARGE_KERNEL_BYTES) compile at -O2, smaller ones at
    -O3, larger ones at -O1; each computes the same."""
    for sizes, level in (({}, "-O3"), ({"QD_MEDIUM_KERNEL_BYTES": "0"}, "-O2"),
                         ({"QD_MEDIUM_KERNEL_BYTES": "0", "QD_LARGE_KERNEL_BYTES": "0"}, "-O1")):
        case = tmp_path / level.strip("-")
        case.mkdir()
        levels, out = optimization_levels(case, **sizes)
        assert levels == {level}, (sizes, levels)
        assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")

DELETE_MID_RUN = textwrap.dedent("""
    import os, shutil
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
    shutil.rmtree(os.environ["QD_CACHE_DIR"])  # someone clears the cache while the program runs
    add_two(a)
    print(a.tolist(), sorted(os.listdir(os.environ["QD_CACHE_DIR"]))[:1])
""")


def test_cache_directory_removed_while_running_is_made_again(tmp_path):
    out, _ = run(tmp_path / "cache", DELETE_MID_RUN)
    assert out.startswith("[3, 3, 3, 3] ['add_two-")  # recreated, and add_two cached in it


def test_processes_sharing_one_empty_cache(tmp_path):
    """Four processes compile the same kernels into one new cache at once: all get right results, and each kernel
    ends up as exactly one verified entry (writes are atomic renames, never torn)."""
    environment = {**os.environ, "QD_CACHE_DIR": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, script(KERNELS)], env=environment, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")
    assert len(libraries(tmp_path, "add_one")) == 1 and len(libraries(tmp_path, "add_two")) == 1
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name or p.name.startswith("work-")]
    out, _ = run(tmp_path)  # and a later process loads them
    assert out.startswith("[1, 1, 1, 1] [2, 2, 2, 2]")


THREADS = textwrap.dedent("""
    import threading
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)

    def make(k):
        @qd.kernel
        def add(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(a.shape[0]):
                a[i] += qd.static(k)
        return add

    kernels = [make(k) for k in range(6)]
    results = [None] * 6

    def work(k):
        a = np.zeros(3, dtype=np.int32)
        kernels[k](a)
        results[k] = a.tolist()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(results)
""")


def test_threads_compiling_different_kernels_at_once(tmp_path):
    out, _ = run(tmp_path, THREADS)
    assert out == str([[k] * 3 for k in range(6)])


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories, so there is nothing to test")
def test_read_only_cache_is_read_and_not_written(warm_cache, tmp_path):
    cache_dir, one, _ = warm_cache
    cache_dir.chmod(0o500)
    try:
        out, err = run(cache_dir, KERNELS.replace("a[i] += 2", "a[i] += 3"))  # add_two changed: a new compile
        assert out.startswith("[1, 1, 1, 1] [3, 3, 3, 3]")
        assert "is not writable" in err and len(libraries(cache_dir, "add_two")) == 1
    finally:
        cache_dir.chmod(0o700)
