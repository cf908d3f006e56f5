# tests/python/test_cache_control.py: qd.clear_cache(), and the disk cache's size cap (QD_CACHE_MAX_MB,
# qd.init(offline_cache_max_size_of_files=...)) evicting least recently used entries, also under concurrency.
#
# Each run is a fresh process, as a user's next run would be; the cache directory is per test.
import os
import subprocess
import sys
import textwrap

import pytest

import quadrants as qd

pytestmark = pytest.mark.cpu_only  # the CPU library cache; the CUDA image cache goes through the same store


def program(kernels, init_args=""):
    """A script compiling (or loading) kernel kN for each N in kernels; each adds its own N. Every script
    defines the same k1..k4 at the same lines, so a kernel's generated code, hence its entry, is the same."""
    lines = ["import numpy as np", "import quadrants as qd", f"qd.init(arch=qd.cpu{init_args})"]
    for n in range(1, 5):
        lines += ["@qd.kernel", f"def k{n}(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):",
                  "    for i in range(a.shape[0]):", f"        a[i] += {n}"]
    for n in kernels:
        lines += ["a = np.zeros(3, dtype=np.int32)", f"k{n}(a)", f"assert a.tolist() == [{n}] * 3, a"]
    lines.append("print('ok')")
    return "\n".join(lines) + "\n"


def start(tmp_path, code, **env):
    script = tmp_path / "prog.py"  # one path: kernels record where they were defined
    (tmp_path / "prog.py.tmp").write_text(code)
    (tmp_path / "prog.py.tmp").replace(script)  # never truncated under a process starting from it
    # QD_CHECK_CUDA=0: the test command's NVRTC compile check would add a CUDA image to the cache per kernel;
    # QD_TRANSLATION_CACHE=0: nor a translation entry (test_translation_cache.py counts those).
    environment = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "cache"), "QD_CHECK_CUDA": "0",
                   "QD_TRANSLATION_CACHE": "0", **env}
    return subprocess.Popen([sys.executable, str(script)], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run(tmp_path, code, **env):
    proc = start(tmp_path, code, **env)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.strip().endswith("ok"), f"exit {proc.returncode}\n{out}\n{err}"
    return err


def cached_kernels(tmp_path):
    """The kernels (k1, k2, ...) with a complete entry (library and manifest) in the cache."""
    cache = tmp_path / "cache"
    return sorted(p.name.split("-")[0] for p in cache.glob("k*-*.so") if (cache / (p.name + ".manifest")).exists())


def entry_bytes(tmp_path, kernel):
    return sum(p.stat().st_size for p in (tmp_path / "cache").glob(f"{kernel}-*"))


def test_clear_cache_removes_every_entry_and_the_next_run_recompiles(tmp_path, monkeypatch):
    run(tmp_path, program([1, 2]))
    assert cached_kernels(tmp_path) == ["k1", "k2"]
    monkeypatch.setenv("QD_CACHE_DIR", str(tmp_path / "cache"))
    entries = len(list((tmp_path / "cache").glob("*.manifest")))  # per kernel: its library and its index entry
    assert entries == 4
    assert qd.clear_cache() == entries
    assert cached_kernels(tmp_path) == [] and not list((tmp_path / "cache").glob("k*"))
    assert qd.clear_cache() == 0
    run(tmp_path, program([1, 2]))
    assert cached_kernels(tmp_path) == ["k1", "k2"]


def test_tiny_cap_keeps_only_the_entry_just_stored(tmp_path):
    run(tmp_path, program([1, 2, 3]), QD_CACHE_MAX_MB="0.001")
    assert cached_kernels(tmp_path) == ["k3"]


def test_no_cap_with_zero_or_policy_never(tmp_path):
    run(tmp_path, program([1, 2]), QD_CACHE_MAX_MB="0")
    run(tmp_path, program([3], ", offline_cache_max_size_of_files=1, offline_cache_cleaning_policy='never'"))
    assert cached_kernels(tmp_path) == ["k1", "k2", "k3"]


@pytest.mark.parametrize("policy, evicted", [("lru", "k2"), ("fifo", "k1")])
def test_cap_evicts_the_least_recently_used_entry(tmp_path, policy, evicted):
    run(tmp_path, program([1, 2]))  # k1 stored, then k2
    run(tmp_path, program([1]))  # a hit on k1: now k2 is the least recently used, k1 still the oldest
    one_entry = max(entry_bytes(tmp_path, "k1"), entry_bytes(tmp_path, "k2"))
    cap = int(2.5 * one_entry)  # room for two entries, not three
    run(tmp_path, program([3], f", offline_cache_max_size_of_files={cap}, offline_cache_cleaning_factor=0.0, "
                               f"offline_cache_cleaning_policy={policy!r}"))
    assert cached_kernels(tmp_path) == sorted({"k1", "k2", "k3"} - {evicted})


@pytest.mark.parametrize("factor, kept", [(0.25, ["k3", "k4"]), (0.5, ["k4"])])
def test_cleaning_factor_trims_below_the_cap(tmp_path, factor, kept):
    run(tmp_path, program([1, 2, 3]))
    one_entry = entry_bytes(tmp_path, "k1")
    # k4 makes four entries, over a cap of 3.5: trimmed to (1 - factor) * 3.5 entries, oldest first.
    run(tmp_path, program([4], f", offline_cache_max_size_of_files={int(3.5 * one_entry)}, "
                               f"offline_cache_cleaning_factor={factor}"))
    assert cached_kernels(tmp_path) == kept


def test_concurrent_processes_with_a_tiny_cap_never_fail(tmp_path):
    # Every store evicts what the others just stored or are loading: each process must still get
    # correct kernels (a vanished entry is a miss and is recompiled), never a crash or a wrong result.
    code = program([1, 2, 3, 1, 2, 3])
    procs = [start(tmp_path, code, QD_CACHE_MAX_MB="0.02") for _ in range(3)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and out.strip().endswith("ok"), f"exit {proc.returncode}\n{out}\n{err}"


def test_the_size_log_tracks_stores_across_processes_and_a_planted_figure_only_triggers_a_listing(tmp_path):
    # Stores append their entry's size to usage.log instead of listing the directory (cache_eviction.cpp).
    run(tmp_path, program([1]))
    run(tmp_path, program([2, 3]))
    log = tmp_path / "cache" / "usage.log"
    total = sum(entry_bytes(tmp_path, k) for k in ("k1", "k2", "k3"))
    assert sum(int(line) for line in log.read_text().split()) == total
    # A figure far above the cap makes the next store list the directory: the exact total replaces the log
    # and nothing is evicted, since the entries themselves are under the cap.
    log.write_text(f"{10 ** 12}\n")
    # The listing also counts the compiled-kernel index's entries (of k1-k3; k4's comes after its library), which
    # stores do not log (compiled_index.cpp).
    index_bytes = sum(p.stat().st_size for p in (tmp_path / "cache").glob("compiled_index-*"))
    assert index_bytes > 0
    run(tmp_path, program([4]))
    assert cached_kernels(tmp_path) == ["k1", "k2", "k3", "k4"]
    assert int(log.read_text()) == total + entry_bytes(tmp_path, "k4") + index_bytes


def test_kernels_loaded_from_the_cache_in_one_process_each_run_their_own_code(tmp_path):
    # Cached libraries are loaded from in-memory files whose /proc/self/fd paths would repeat (compiler.cpp).
    run(tmp_path, program([1, 2, 3, 4]))
    err = run(tmp_path, program([1, 2, 3, 4, 2, 1]))  # each asserts its own result, all from the cache
    assert cached_kernels(tmp_path) == ["k1", "k2", "k3", "k4"], err


def test_bad_cap_settings_are_reported(tmp_path):
    err = run(tmp_path, program([1]), QD_CACHE_MAX_MB="lots")
    assert "QD_CACHE_MAX_MB='lots'" in err
    with pytest.raises(ValueError, match="offline_cache_cleaning_policy"):
        qd.init(arch=qd.cpu, offline_cache_cleaning_policy="random")
    with pytest.raises(ValueError, match="offline_cache_cleaning_factor"):
        qd.init(arch=qd.cpu, offline_cache_cleaning_factor=1.5)
    with pytest.raises(ValueError, match="offline_cache_max_size_of_files"):
        qd.init(arch=qd.cpu, offline_cache_max_size_of_files=-1)
    qd.init(arch=qd.cpu)
