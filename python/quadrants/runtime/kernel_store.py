# python/quadrants/runtime/kernel_store.py: the per-kernel records of the disk cache, in upstream's layout: a folder
# kernel_compilation_manager/ under the cache directory, one `<kernel>-<key>.qdc` file per kernel and one index,
# qdcache.qdb.
#
# A record holds what the translation cache (kernels/translation_cache.py) keeps for one kernel: its IR and every
# input the translation read. The compiled libraries stay in the C++ core's cache beside this folder (its listing
# skips folders). As upstream's kernel compilation manager does, a process keeps what it translated in memory and
# writes it when its program ends (qd.reset(), the next qd.init(), interpreter exit), then applies the cleaning
# policy: `never`; `version` drops records of other package versions (which are never loaded anyway); `lru` and
# `fifo` do that too and, when the records' total size reached offline_cache_max_size_of_files, drop the
# int(offline_cache_cleaning_factor * count) least recently used or oldest ones. An index left with no record is
# removed, so a folder that held nothing stays empty.
#
# What is loaded is checked first, as the C++ core checks its entries: the folder, the index and the record must be
# regular files and folders owned by this user that nobody else can write (no symlink is followed; the index and
# the record are opened through the descriptor of the folder checked), the index must parse as this format, and
# the record's size and SHA-256 must be the ones the index holds; anything else is a miss.
# Writers hold an exclusive flock on the folder while they write records and the index, so concurrent processes
# merge their records instead of losing them, and a record no index names (its writer died) is removed.
import atexit
import fcntl
import hashlib
import json
import multiprocessing.util
import os
import stat
import threading
import time

from quadrants.runtime import options as _init_options

FOLDER = "kernel_compilation_manager"
INDEX = "qdcache.qdb"
SUFFIX = ".qdc"
FORMAT = 1
POLICIES = ("never", "version", "lru", "fifo")
_TEMP_MARK = ".tmp-"
_STALE_TEMP_SECONDS = 600


def _is_private(info):
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _open_private_folder(path):
    """A descriptor of `path` when it is a folder (not a symlink) owned by us that nobody else can write; else None.
    Files are then opened relative to it, so the folder checked is the folder read from."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if _is_private(os.fstat(fd)):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _read_private(name, folder_fd):
    """The bytes of file `name` of the folder `folder_fd`, a regular file only we can write, read without following
    a symlink; None otherwise. Files here are written whole and renamed into place (never changed in place), so
    fstat's size is the file's: reading that many bytes takes one read call, and no 1 MB buffer is made."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _is_private(info):
            return None
        data = os.read(fd, info.st_size)
        if len(data) < info.st_size:  # a short read (not at end of file): read on until the end
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def _valid_record(record):
    name = record.get("file") if isinstance(record, dict) else None
    return (isinstance(name, str) and name.endswith(SUFFIX) and "/" not in name and not name.startswith(".")
            and isinstance(record.get("sha256"), str) and isinstance(record.get("size"), int)
            and isinstance(record.get("created"), int) and isinstance(record.get("last_used"), int))


class KernelStore:
    """The records of one cache folder, for one qd.init() session. `folder` is the folder, or a function giving the
    cache directory it is in, called when first needed (so a session that translates nothing creates no folder)."""

    def __init__(self, folder, policy="lru", max_bytes=0, factor=0.25):
        self._folder = folder
        self.policy = policy
        self.max_bytes = max_bytes
        self.factor = factor
        self.version = None  # the package version of this session's records (set by read/write), for cleaning
        self._index = None  # key -> record, as last read from disk
        self._pending = {}  # key -> (file name, bytes): written by flush()
        self._used = {}  # key -> when this session last read it
        self._lock = threading.Lock()  # kernels may compile in several threads while another ends the session

    @property
    def folder(self):
        if callable(self._folder):
            self._folder = os.path.join(self._folder(), FOLDER)
        return self._folder

    # ---- reading ---------------------------------------------------------------------------------------------
    def _folder_is_private(self):
        try:
            info = os.lstat(self.folder)
        except OSError:
            return False
        return stat.S_ISDIR(info.st_mode) and _is_private(info)

    def _read_index(self, folder_fd=None):
        """The index on disk, checked; {} when it is missing, not ours or not of this format. `folder_fd`: the
        folder, already opened and checked by the caller (else it is opened here)."""
        fd = folder_fd if folder_fd is not None else _open_private_folder(self.folder)
        if fd is None:
            return {}
        try:
            data = _read_private(INDEX, fd)
        finally:
            if folder_fd is None:
                os.close(fd)
        if data is None:
            return {}
        try:
            index = json.loads(data.decode("utf-8"))  # json.dumps writes ASCII: no encoding to detect
        except ValueError:
            return {}
        if not isinstance(index, dict) or index.get("format") != FORMAT or not isinstance(index.get("records"), dict):
            return {}
        return {key: record for key, record in index["records"].items() if _valid_record(record)}

    def read(self, key, version):
        """The bytes written under `key`, when the index vouches for them (size and SHA-256); None otherwise."""
        with self._lock:
            self.version = version
            pending = self._pending.get(key)
            if pending is not None:
                return pending[1]
            if self._index is not None and not self._index:
                return None  # read this session and empty: the folder is not opened again for each kernel
            folder_fd = _open_private_folder(self.folder)  # the index and the record are read from the folder checked
            if folder_fd is None:
                if self._index is None:
                    self._index = {}
                return None
            try:
                if self._index is None:
                    self._index = self._read_index(folder_fd)
                record = self._index.get(key)
                if record is None:
                    return None
                data = _read_private(record["file"], folder_fd)
            finally:
                os.close(folder_fd)
            if data is None or len(data) != record["size"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
                return None
            self._used[key] = time.time_ns()
            return data

    # ---- writing ---------------------------------------------------------------------------------------------
    def write(self, key, name, data, version):
        """Keeps `data` as the record of `key` (file `<name>-<key>.qdc`), written by the next flush()."""
        with self._lock:
            self.version = version
            self._pending[key] = (f"{name}-{key}{SUFFIX}", bytes(data))

    def discard(self):
        """Forgets what this session would write (qd.clear_cache(); a forked child, for what its parent writes)."""
        with self._lock:
            self._pending.clear()
            self._used.clear()
            self._index = None

    def flush(self):
        """Writes this session's records and the index, then applies the cleaning policy. Returns False (after one
        warning) when the folder cannot be used."""
        with self._lock:
            return self._flush()

    def _flush(self):
        if not self._pending and (callable(self._folder) or not os.path.isdir(self.folder)):
            return True  # nothing to write and nothing to clean: the folder is not created
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            if not self._folder_is_private():
                raise OSError(f"'{self.folder}' is not a folder owned by you that only you can write")
            fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._flush_locked()
            finally:
                os.close(fd)  # releases the lock
        except OSError as exc:
            _init_options.warn_once("kernel_store_write", f"quadrants: the kernel cache records could not be written "
                                    f"to '{self.folder}': {exc}. Kernels run as usual; the next process translates "
                                    f"them again.")
            self._pending.clear()
            self._used.clear()
            return False
        return True

    def _flush_locked(self):
        index = self._read_index()
        before = json.dumps(index)
        now = time.time_ns()
        for key, (file_name, data) in self._pending.items():
            self._write_file(file_name, data)
            old = index.pop(key, None)
            if old is not None and old["file"] != file_name:
                self._remove(old["file"])
            index[key] = {"file": file_name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                          "created": now, "last_used": now, "version": self.version}
        for key, used in self._used.items():
            if key in index:
                index[key]["last_used"] = max(index[key]["last_used"], used)
        index = {key: record for key, record in index.items() if os.path.isfile(os.path.join(self.folder,
                                                                                             record["file"]))}
        index = self._cleaned(index)
        self._remove_unindexed(index)
        if not index:
            self._remove(INDEX)
        elif json.dumps(index) != before or not os.path.isfile(os.path.join(self.folder, INDEX)):
            self._write_file(INDEX, json.dumps({"format": FORMAT, "records": index}, separators=(",", ":")).encode())
        self._pending.clear()
        self._used.clear()
        self._index = index

    def _cleaned(self, index):
        """The index after the cleaning policy; the records it drops are removed from disk by _remove_unindexed."""
        if self.policy == "never":
            return index
        if self.version is not None:
            index = {key: record for key, record in index.items() if record.get("version") == self.version}
        if self.policy not in ("lru", "fifo") or self.max_bytes <= 0:
            return index
        count = int(self.factor * len(index))
        if sum(record["size"] for record in index.values()) < self.max_bytes or count == 0:
            return index
        when = "last_used" if self.policy == "lru" else "created"
        oldest = sorted(index, key=lambda key: index[key][when])[:count]  # stable: the index keeps write order
        return {key: record for key, record in index.items() if key not in oldest}

    def _remove_unindexed(self, index):
        kept = {record["file"] for record in index.values()}
        for name in os.listdir(self.folder):
            path = os.path.join(self.folder, name)
            if name.endswith(SUFFIX) and name not in kept:
                self._remove(name)
            elif _TEMP_MARK in name:
                try:
                    if time.time() - os.lstat(path).st_mtime > _STALE_TEMP_SECONDS:
                        os.unlink(path)
                except OSError:
                    pass

    def _write_file(self, name, data):
        """Writes `name` whole or not at all: a private temporary file, renamed over it."""
        temporary = os.path.join(self.folder, f"{name}{_TEMP_MARK}{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temporary, os.path.join(self.folder, name))

    def _remove(self, name):
        try:
            os.unlink(os.path.join(self.folder, name))
        except OSError:
            pass


def clear(folder):
    """Removes every record and the index from `folder` (qd.clear_cache()); returns how many records it removed."""
    store = KernelStore(folder)
    if _current is not None:
        _current.discard()
    if not store._folder_is_private():
        return 0
    removed = 0
    for name in os.listdir(folder):
        if name.endswith(SUFFIX) or name == INDEX or _TEMP_MARK in name:
            store._remove(name)
            removed += name.endswith(SUFFIX)
    return removed


_current = None  # the store of the current qd.init() session


def open_session(cache_dir, policy, max_bytes, factor):
    """Starts the records of a qd.init() session in kernel_compilation_manager/ of `cache_dir` (a path, or a
    function giving it when first needed)."""
    global _current
    close_session()
    _current = KernelStore(cache_dir if callable(cache_dir) else os.path.join(cache_dir, FOLDER), policy, max_bytes,
                           factor)


def current():
    """The store of this session; None before qd.init() and after qd.reset()."""
    return _current


def close_session():
    """Writes this session's records (qd.reset(), qd.init(), exit) and ends the session."""
    global _current
    store, _current = _current, None
    if store is not None:
        store.flush()


def _forked_child():
    if _current is not None:
        _current._lock = threading.Lock()  # another thread of the parent may have held it
        _current.discard()


class _Anchor:
    """What multiprocessing's after-fork registry holds weakly: this module's lifetime."""


def _in_multiprocessing_child(_anchor):
    multiprocessing.util.Finalize(None, close_session, exitpriority=0)


# The session ends at exit. A multiprocessing worker started by fork leaves through os._exit, past atexit, after
# running the finalizers registered since it started (it drops the inherited ones first), so each worker registers
# one. A forked child drops the records it inherited: its parent writes them.
atexit.register(close_session)
os.register_at_fork(after_in_child=_forked_child)
_anchor = _Anchor()
multiprocessing.util.register_after_fork(_anchor, _in_multiprocessing_child)
