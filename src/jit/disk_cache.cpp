// src/jit/disk_cache.cpp: where the cache lives, who may have written it, and verified reads.
#include "jit/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <system_error>

#include "jit/sha256.h"
#include "quadrants/errors.h"

namespace qd::jit {
namespace {

constexpr const char* kManifestHeader = "quadrants-cache-entry 1";
constexpr time_t kStaleSeconds = 3600;  // a temporary older than this belongs to a compile that died

std::atomic<bool> g_disk_cache_enabled{true};
std::mutex g_dirs_mutex;  // guards the tables below

// Owned by us, and nobody else may write into it (or replace what it holds).
bool is_private(const struct stat& info) {
  return info.st_uid == ::geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

std::string home_dir() {
  const char* home = std::getenv("HOME");
  if (home && *home) return home;
  const struct passwd* entry = ::getpwuid(::geteuid());
  return entry && entry->pw_dir && *entry->pw_dir ? entry->pw_dir : "";
}

std::string requested_dir() {
  const char* dir = std::getenv("QD_CACHE_DIR");
  if (dir && *dir) return dir;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/quadrants";
  std::string home = home_dir();
  return home.empty() ? "" : home + "/.cache/quadrants";
}

// mkdir -p, new directories 0700.
void make_dirs(const std::string& path) {
  for (size_t pos = 1; pos != std::string::npos; pos = path.find('/', pos + 1)) {
    ::mkdir(path.substr(0, pos).c_str(), 0700);
  }
  ::mkdir(path.c_str(), 0700);
}

std::string private_temp_dir(const char* prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    throw CompileError("Could not create a private temporary directory from '" + pattern + "': " +
                       std::strerror(errno) + ".");
  }
  return pattern;
}

// Opens a regular file that only we can write, without following a symlink at the last step.
int open_private_file(const std::string& path, struct stat* info) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (::fstat(fd, info) != 0 || !S_ISREG(info->st_mode) || !is_private(*info)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool read_fd(int fd, std::string* out) {
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno != EINTR) return false;
    if (n > 0) out->append(buf, static_cast<size_t>(n));
  }
  return true;
}

std::string manifest_text(const std::string& key, const std::string& bytes) {
  return std::string(kManifestHeader) + "\nkey " + key + "\nsha256 " + sha256_hex(bytes) + "\nsize " +
         std::to_string(bytes.size()) + "\n";
}

// The digest and size of a manifest that manifest_text(key, ...) wrote; false for any other text. Parsed by hand,
// not with a string stream, whose locale setup is tens of us of a warm-cache first kernel call.
bool parse_manifest(const std::string& manifest, const std::string& key, std::string* digest, uint64_t* size) {
  std::string head = std::string(kManifestHeader) + "\nkey " + key + "\nsha256 ";
  if (manifest.compare(0, head.size(), head) != 0) return false;
  size_t digest_end = manifest.find("\nsize ", head.size());
  if (digest_end == std::string::npos || digest_end == head.size()) return false;
  *digest = manifest.substr(head.size(), digest_end - head.size());
  const char* first = manifest.data() + digest_end + 6;
  const char* last = manifest.data() + manifest.size();
  if (last > first && last[-1] == '\n') --last;
  std::from_chars_result parsed = std::from_chars(first, last, *size);
  return first != last && parsed.ec == std::errc() && parsed.ptr == last &&
         digest->find_first_of(" \t\n") == std::string::npos;
}

}  // namespace

std::string cache_dir() {
  std::string wanted = requested_dir();
  std::lock_guard<std::mutex> lock(g_dirs_mutex);
  static std::map<std::string, std::string> resolved;  // requested -> the directory used
  auto found = resolved.find(wanted);
  if (found != resolved.end()) {
    struct stat info {};
    if (::stat(found->second.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && is_private(info)) return found->second;
    resolved.erase(found);  // removed (or replaced) while this process ran: resolve it again
  }
  std::string dir = wanted;
  struct stat info {};
  if (!dir.empty()) make_dirs(dir);
  if (dir.empty() || ::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || !is_private(info)) {
    std::string fallback = private_temp_dir("quadrants-cache-");
    std::fprintf(stderr,
                 "quadrants: warning: not using the kernel cache directory '%s': %s. Kernels are cached in "
                 "'%s' for this process only; set QD_CACHE_DIR to a directory of yours that others cannot "
                 "write (chmod go-w).\n",
                 wanted.c_str(),
                 dir.empty() ? "there is no home directory" : "it is not a directory owned by you that only you can write",
                 fallback.c_str());
    dir = fallback;
  }
  return resolved[wanted] = dir;
}

bool is_temporary_name(const std::string& name) {
  return name.rfind("work-", 0) == 0 || name.find(".tmp-") != std::string::npos;
}

void remove_if_stale(const std::string& dir, const std::string& name) {
  struct stat info {};
  if (::lstat((dir + "/" + name).c_str(), &info) != 0) return;
  if (std::time(nullptr) - info.st_mtime < kStaleSeconds || info.st_uid != ::geteuid()) return;
  if (name.rfind("work-", 0) == 0 && S_ISDIR(info.st_mode)) remove_tree(dir + "/" + name);
  if (name.find(".tmp-") != std::string::npos && S_ISREG(info.st_mode)) ::unlink((dir + "/" + name).c_str());
}

bool disk_cache_enabled() { return g_disk_cache_enabled.load(std::memory_order_relaxed); }
void set_disk_cache_enabled(bool enabled) { g_disk_cache_enabled.store(enabled, std::memory_order_relaxed); }

bool cache_writable() {
  std::string dir = cache_dir();
  if (::access(dir.c_str(), W_OK) == 0) return true;
  warn_cache_not_writable(dir, std::strerror(errno));
  return false;
}

void warn_cache_not_writable(const std::string& dir, const std::string& why) {
  std::lock_guard<std::mutex> lock(g_dirs_mutex);
  static std::set<std::string> warned;
  if (warned.insert(dir).second) {
    std::fprintf(stderr, "quadrants: warning: the kernel cache directory '%s' is not writable (%s); kernels found "
                 "there are used, new ones are compiled in a private directory without being cached.\n",
                 dir.c_str(), why.c_str());
  }
}

bool directory_may_have_failed(const std::string& work_dir, const std::string& output) {
  struct statvfs fs {};
  if (::statvfs(work_dir.c_str(), &fs) != 0 || (fs.f_flag & ST_RDONLY) || ::access(work_dir.c_str(), W_OK) != 0) {
    return true;
  }
  // A compile writes an object and a library of about the source's size; below this, "full" is likely.
  constexpr uint64_t kRoomNeeded = 16ull << 20;
  if (static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < kRoomNeeded) return true;
  for (int error : {ENOSPC, EROFS, EDQUOT, ENOENT}) {
    if (output.find(std::strerror(error)) != std::string::npos) return true;
  }
  return false;
}

std::string make_work_dir(bool in_cache) {
  if (in_cache && disk_cache_enabled()) {
    std::string pattern = cache_dir() + "/work-XXXXXX";
    if (::mkdtemp(pattern.data())) return pattern;
  }
  return private_temp_dir("quadrants-work-");  // no cache, or one we cannot write to
}

void remove_tree(const std::string& path) {
  if (DIR* listing = ::opendir(path.c_str())) {
    while (const dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlink((path + "/" + name).c_str());
    }
    ::closedir(listing);
  }
  ::rmdir(path.c_str());
}

std::optional<std::string> read_verified(const std::string& path, const std::string& key) {
  struct stat info {};
  int manifest_fd = open_private_file(path + ".manifest", &info);
  if (manifest_fd < 0) return std::nullopt;
  std::string manifest;
  bool read_ok = read_fd(manifest_fd, &manifest);
  ::close(manifest_fd);
  std::string digest;
  uint64_t size = 0;
  if (!read_ok || !parse_manifest(manifest, key, &digest, &size)) return std::nullopt;
  int fd = open_private_file(path, &info);
  if (fd < 0) return std::nullopt;
  std::string bytes;
  bool whole = static_cast<uint64_t>(info.st_size) == size && read_fd(fd, &bytes) && bytes.size() == size;
  bool valid = whole && sha256_hex(bytes) == digest;
  if (valid) {  // its access time records its last use, for the size cap's LRU order (set even under noatime)
    const struct timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
    ::futimens(fd, times);
  }
  ::close(fd);
  if (!valid) return std::nullopt;
  return bytes;
}

bool store_entry(const std::string& path, const std::string& key, const std::string& bytes, bool evict) {
  std::string error;
  bool stored = try_write_file_atomically(path, bytes, &error);
  if (stored && !try_write_file_atomically(path + ".manifest", manifest_text(key, bytes), &error)) {
    ::unlink(path.c_str());
    stored = false;
  }
  if (!stored) {
    warn_cache_not_writable(path.substr(0, path.rfind('/')), error);
    return false;
  }
  if (evict) evict_to_fit(path);
  return true;
}

namespace {

// A file name of the cache directory's own: no separator, no leading dot, and the `-` that starts the key.
bool is_plain_entry_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.' || name.find('-') == std::string::npos) return false;
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '.' || c == '-';
    if (!plain) return false;
  }
  return !is_temporary_name(name);
}

}  // namespace

std::optional<std::string> read_named_entry(const std::string& file_name, const std::string& key) {
  if (!disk_cache_enabled() || !is_plain_entry_name(file_name)) return std::nullopt;
  return read_verified(cache_dir() + "/" + file_name, key);
}

bool store_named_entry(const std::string& file_name, const std::string& key, const std::string& bytes,
                       bool evict) {
  if (!disk_cache_enabled() || !is_plain_entry_name(file_name) || !cache_writable()) return false;
  return store_entry(cache_dir() + "/" + file_name, key, bytes, evict);  // false (and a warning) when it could not write
}

bool read_file(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = read_fd(fd, out);
  ::close(fd);
  return ok;
}

bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool try_write_file_atomically(const std::string& path, const std::string& text, std::string* error) {
  static std::atomic<int> counter{0};
  std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  bool ok = fd >= 0 && write_all(fd, text);
  int saved = errno;
  if (fd >= 0 && ::close(fd) != 0 && ok) {  // a delayed write error (NFS, quotas) shows at close
    ok = false;
    saved = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    *error = "writing '" + path + "': " + std::strerror(saved);
  }
  return ok;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  std::string error;
  if (!try_write_file_atomically(path, text, &error)) {
    throw CompileError("Could not write a file of the kernel cache (" + error +
                       "); check that the cache directory is writable and its disk not full.");
  }
}

}  // namespace qd::jit
