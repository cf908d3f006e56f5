# tests/python/test_kernel_store.py: the kernel records in upstream's layout (runtime/kernel_store.py) and
# qd.init(offline_cache_file_path=...): when they are written, how they are cleaned, and what is refused on reading.
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import quadrants as qd
from quadrants.kernels import translation_cache
from quadrants.runtime import kernel_store


@qd.kernel
def plus_one(x: qd.types.ndarray()):
    for i in x:
        x[i] += 1


@qd.kernel
def times_two(x: qd.types.ndarray()):
    for i in x:
        x[i] *= 2


def records(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.fixture
def cache_path(tmp_path):
    before = os.environ.get("QD_CACHE_DIR")
    yield tmp_path / "cache"
    qd.init(arch=qd.cpu)
    assert os.environ.get("QD_CACHE_DIR") == before, "a qd.init() without the path restores QD_CACHE_DIR"


def test_records_are_written_when_the_session_ends_and_read_by_the_next(cache_path):
    folder = cache_path / kernel_store.FOLDER
    qd.init(arch=qd.cpu, offline_cache_file_path=str(cache_path))
    assert os.environ["QD_CACHE_DIR"] == str(cache_path)
    x = np.zeros(4, np.float32)
    plus_one(x)
    times_two(x)
    assert records(folder) == []  # as upstream: nothing is written before the program ends
    qd.reset()
    names = records(folder)
    assert len(names) == 3 and kernel_store.INDEX in names
    assert sum(n.startswith("plus_one-") and n.endswith(".qdc") for n in names) == 1
    assert any(p.name.endswith(".manifest") for p in cache_path.iterdir()), "the compiled libraries are there too"
    hits = translation_cache.stats["hits"]
    qd.init(arch=qd.cpu, offline_cache_file_path=str(cache_path))
    plus_one(x)
    assert translation_cache.stats["hits"] == hits + 1 and x.tolist() == [3.0] * 4
    qd.init(arch=qd.cpu, offline_cache_file_path=str(cache_path), opt_level=0)  # upstream keys on opt_level
    plus_one(x)
    qd.reset()
    assert len(records(folder)) == 4


def test_offline_cache_false_writes_no_record(cache_path):
    qd.init(arch=qd.cpu, offline_cache=False, offline_cache_file_path=str(cache_path))
    plus_one(np.zeros(2, np.float32))
    qd.reset()
    assert records(cache_path / kernel_store.FOLDER) == []


def test_offline_cache_file_path_must_be_a_path():
    with pytest.raises(TypeError, match=r"offline_cache_file_path=\.\.\.\) expects a str, but got 3"):
        qd.init(arch=qd.cpu, offline_cache_file_path=3)


def _store(folder, policy="lru", max_bytes=0, factor=0.25, version="v1"):
    store = kernel_store.KernelStore(str(folder), policy, max_bytes, factor)
    store.version = version
    return store


def _write(folder, names, version="v1", policy="lru"):
    store = _store(folder, policy, version=version)
    for name in names:
        store.write(f"key{name}", name, f"data of {name}".encode(), version)
    assert store.flush()


def _kept(folder):
    return sorted(n.split("-")[0] for n in records(folder) if n.endswith(kernel_store.SUFFIX))


@pytest.mark.parametrize("policy, factor, kept", [
    ("never", 0.5, ["a", "b", "c", "d"]), ("version", 0.5, ["a", "b", "c", "d"]),
    ("fifo", 0.5, ["c", "d"]), ("fifo", 0.0, ["a", "b", "c", "d"]), ("fifo", 1.0, []),
    ("lru", 0.25, ["a", "c", "d"]), ("lru", 0.5, ["a", "d"]),
])
def test_cleaning_policies(tmp_path, policy, factor, kept):
    _write(tmp_path, ["a", "b"])
    _write(tmp_path, ["c", "d"])
    reader = _store(tmp_path)
    assert reader.read("keya", "v1") == b"data of a"  # now the most recently used but the first created
    assert reader.flush()
    size = sum(len(f"data of {n}") for n in "abcd")
    _store(tmp_path, policy, max_bytes=size + 1, factor=factor).flush()
    assert _kept(tmp_path) == ["a", "b", "c", "d"], "under the cap nothing is cleaned"
    _store(tmp_path, policy, max_bytes=size, factor=factor).flush()
    assert _kept(tmp_path) == kept
    if not kept:
        assert records(tmp_path) == [], "an index without records is removed"


def test_records_of_another_version_are_cleaned_unless_never(tmp_path):
    _write(tmp_path, ["old"], version="v0")
    _write(tmp_path, ["new"], version="v1", policy="never")
    _store(tmp_path, "never").flush()
    assert _kept(tmp_path) == ["new", "old"]
    _store(tmp_path, "version").flush()
    assert _kept(tmp_path) == ["new"]


def test_what_the_index_does_not_vouch_for_is_not_read(tmp_path):
    _write(tmp_path, ["a", "b", "c"])
    (tmp_path / "a-keya.qdc").write_bytes(b"data of A")  # same size, other bytes
    (tmp_path / "b-keyb.qdc").write_bytes(b"data of bb")  # truncated or grown
    os.chmod(tmp_path / "c-keyc.qdc", 0o666)  # others could have written it
    store = _store(tmp_path)
    assert [store.read(key, "v1") for key in ("keya", "keyb", "keyc")] == [None, None, None]
    os.chmod(tmp_path / "c-keyc.qdc", 0o600)
    assert _store(tmp_path).read("keyc", "v1") == b"data of c"
    os.unlink(tmp_path / "c-keyc.qdc")
    (tmp_path / "elsewhere.qdc").write_bytes(b"data of c")
    os.symlink(tmp_path / "elsewhere.qdc", tmp_path / "c-keyc.qdc")  # a link is not followed
    assert _store(tmp_path).read("keyc", "v1") is None


def test_an_index_that_others_can_write_or_that_names_another_folder_is_refused(tmp_path):
    _write(tmp_path, ["a"])
    index = tmp_path / kernel_store.INDEX
    os.chmod(index, 0o664)
    assert _store(tmp_path).read("keya", "v1") is None
    os.chmod(index, 0o600)
    assert _store(tmp_path).read("keya", "v1") == b"data of a"
    text = json.loads(index.read_text())
    text["records"]["keya"]["file"] = "../a-keya.qdc"
    index.write_text(json.dumps(text))
    assert _store(tmp_path).read("keya", "v1") is None


def test_a_record_no_index_names_is_removed_and_a_forked_child_writes_only_its_own(tmp_path):
    _write(tmp_path, ["a"])
    (tmp_path / "orphan-key.qdc").write_bytes(b"left by a writer that died")
    (tmp_path / "notes.txt").write_text("not ours")
    kernel_store.open_session(str(tmp_path.parent / "elsewhere"), "lru", 0, 0.25)
    store = kernel_store.current()
    store._folder = str(tmp_path)
    store.write("keyb", "b", b"data of b", "v1")
    pid = os.fork()
    if pid == 0:  # the child writes its own record, not the one it inherited
        store.write("keyc", "c", b"data of c", "v1")
        os._exit(0 if store.flush() and not (tmp_path / "b-keyb.qdc").exists() else 1)
    assert os.waitpid(pid, 0)[1] == 0
    kernel_store.close_session()
    assert sorted(records(tmp_path)) == ["a-keya.qdc", "b-keyb.qdc", "c-keyc.qdc", "notes.txt", kernel_store.INDEX]


def test_clear_cache_removes_the_records(cache_path, monkeypatch):
    qd.init(arch=qd.cpu, offline_cache_file_path=str(cache_path))
    plus_one(np.zeros(2, np.float32))
    qd.reset()
    assert len(records(cache_path / kernel_store.FOLDER)) == 2
    monkeypatch.setenv("QD_CACHE_DIR", str(cache_path))
    assert qd.clear_cache() >= 1
    assert records(cache_path / kernel_store.FOLDER) == []


FORKED_WORKER = """
import multiprocessing, pathlib, sys
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu, offline_cache_file_path=sys.argv[1])


@qd.kernel
def in_worker(x: qd.types.ndarray()):
    for i in x:
        x[i] = 7


def work():
    in_worker(np.zeros(2, np.float32))


if __name__ == "__main__":
    worker = multiprocessing.get_context("fork").Process(target=work)
    worker.start()
    worker.join()
    assert worker.exitcode == 0
    print(sorted(p.name.split("-")[0] for p in pathlib.Path(sys.argv[1], "kernel_compilation_manager").iterdir()))
    qd.reset()
"""


def test_a_forked_multiprocessing_worker_writes_its_records(tmp_path):
    """multiprocessing's fork workers leave through os._exit, past atexit: their records are written anyway."""
    (tmp_path / "program.py").write_text(FORKED_WORKER)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "program.py", str(tmp_path / "cache")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split("\n")[0] == str(["in_worker", kernel_store.INDEX])


def test_a_session_that_changes_nothing_leaves_the_index_as_it_was(tmp_path):
    _write(tmp_path, ["a"])
    index = tmp_path / kernel_store.INDEX
    os.utime(index, ns=(1, 1))
    _store(tmp_path).flush()
    assert index.stat().st_mtime_ns == 1
    reader = _store(tmp_path)
    assert reader.read("keya", "v1") == b"data of a"
    reader.flush()
    assert index.stat().st_mtime_ns != 1, "a read updates the record's last use (lru)"
