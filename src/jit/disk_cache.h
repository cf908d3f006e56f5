// src/jit/disk_cache.h: the on-disk kernel cache: a private directory, and entries verified before use.
//
// An entry is a file plus a manifest (`FILE.manifest`) that records the cache key it was made for
// and the SHA-256 of its bytes; the manifest is written after the file, atomically. A reader
// trusts an entry only if its manifest names the key asked for and its bytes hash to the recorded
// digest, and both are regular files owned by this user that nobody else can write. So a
// truncated, scrambled, swapped or planted file is a miss (recompiled), never loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace qd::jit {

// The cache directory, created mode 0700: $QD_CACHE_DIR, else $XDG_CACHE_HOME/quadrants, else
// ~/.cache/quadrants with the home directory from the password database when $HOME is unset. One
// that is not owned by this user or is writable by group or others is not used: a warning once,
// then a private directory made for this process.
std::string cache_dir();

// Whether compiled kernels are read from and written to disk (qd.init(offline_cache=False) turns
// it off: kernels are then compiled in a private temporary directory that is removed at once).
bool disk_cache_enabled();
void set_disk_cache_enabled(bool enabled);

// Whether new entries can be written to the cache directory; a read-only one is warned about once and
// only read from.
bool cache_writable();

// Says once per cache directory (for the whole process, whatever failed first) that it could not be written:
// `why` names what failed and the reason. Later failures there are silent: kernels still run, uncached.
void warn_cache_not_writable(const std::string& dir, const std::string& why);

// Whether a compile that failed in `work_dir` (a directory in the cache) may have failed because of that
// directory rather than the source: it is gone or read-only, its file system is (nearly) full, or the
// compiler's `output` names such an error. The compile is then retried in a private directory.
bool directory_may_have_failed(const std::string& work_dir, const std::string& output);

// A fresh private (0700) directory for one compile, in the cache directory when in_cache (so results
// are renamed into place) or in $TMPDIR; the caller removes it with remove_tree.
std::string make_work_dir(bool in_cache = true);
void remove_tree(const std::string& path);

// The bytes of the entry at `path` if its manifest names `key` and they match the recorded digest;
// use these bytes, never the path again, so what is used is what was verified.
std::optional<std::string> read_verified(const std::string& path, const std::string& key);

// Stores `bytes` as the entry at `path` for `key`: the file, then its manifest, each atomically. When the
// cache cannot take it (disk full, the directory made read-only or removed meanwhile), nothing of the entry
// is left (a library without its manifest is never loaded, but it would take space), warn_cache_not_writable
// says so once, and it returns false: the caller's kernel, already loaded from its own copy, still runs.
// evict: false for entries small next to a library (the compiled-kernel index's), which are then neither logged
// nor the cause of an eviction; a listing still counts them and may evict them as any entry.
bool store_entry(const std::string& path, const std::string& key, const std::string& bytes, bool evict = true);

// Entries of layers above the compiler (the Python frontend's translation cache), by file name in the
// cache directory: `<stem>-<key>.<ext>`, letters, digits and `_.-` only, so eviction and clear_cache()
// treat them as any entry. Both do nothing while the disk cache is off; the read is read_verified's.
std::optional<std::string> read_named_entry(const std::string& file_name, const std::string& key);
// False when the cache is off, not writable or the name is not a plain entry name.
bool store_named_entry(const std::string& file_name, const std::string& key, const std::string& bytes,
                       bool evict = true);

// The size cap (src/jit/cache_eviction.cpp): after each store, when the entries' total size (estimated
// from a log of stored sizes, listed exactly when the estimate passes the cap) passes
// max_bytes, entries are removed (least recently used first, or oldest first for kFifo) until it is
// below (1 - cleaning_factor) of the cap. Default: $QD_CACHE_MAX_MB megabytes, else 1024; 0 is no cap.
enum class CachePolicy { kNever, kLru, kFifo };
void set_cache_limit(uint64_t max_bytes, CachePolicy policy, double cleaning_factor);
void reset_cache_limit();  // back to the default (QD_CACHE_MAX_MB, read again)
uint64_t cache_limit_bytes();  // 0: no cap
// Applies the cap now; the entry at keep_path (just stored) is never the one removed.
void evict_to_fit(const std::string& keep_path);
// Removes every entry of the cache directory (kernels already loaded stay loaded); returns how many.
size_t clear_cache();

// Temporaries of compiles that were killed (kill -9, power loss): work directories and half-written
// files. remove_if_stale removes the one named `name` in `dir` once it is an hour old and ours.
bool is_temporary_name(const std::string& name);
void remove_if_stale(const std::string& dir, const std::string& name);
// Reads a whole file; false when it cannot be opened.
bool read_file(const std::string& path, std::string* out);
// Writes all of `text` to `fd` (retrying interrupted and partial writes); false on an error.
bool write_all(int fd, const std::string& text);
// Readers see either no file or the whole file: write a temporary, then rename over. Throws CompileError
// (with the reason) when it cannot; try_write_file_atomically returns false and the reason in *error instead.
// Either way no temporary is left behind.
void write_file_atomically(const std::string& path, const std::string& text);
bool try_write_file_atomically(const std::string& path, const std::string& text, std::string* error);

}  // namespace qd::jit
