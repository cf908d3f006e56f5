// src/jit/cache_eviction.cpp: the disk cache's size cap (least recently used entries go first) and clearing it.
//
// An entry is every file named `<kernel>-<key>.<ext>`: the compiled file, its `.manifest` and the kept
// source (.cpp/.cu), grouped by that stem. Its last use is the newest time among its files' modification
// times and the compiled file's access time, which read_verified() sets on each hit. Removal is safe while other processes use
// the cache: a loader reads an entry's bytes through an open descriptor and verifies them before use
// (unlinking does not disturb an open file), and one that finds the manifest or file gone takes it as
// a miss and recompiles. The manifest goes first, so no reader sees an entry half removed as valid.
//
// A store does not list the directory: with 12k entries that took 150 ms, on every cold compile. The
// entries' total size is kept in `usage.log`: a listing writes the exact total as its first line, each
// store appends its entry's size (an O_APPEND write of one line is atomic), and the lines' sum is the
// estimate. The directory is listed again only when the estimate passes the cap, or when the log is
// missing or unreadable. An append lost to another process's rewrite only delays the next listing.
// Temporaries of killed compiles are swept during listings (and once per process when there is no cap).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jit/disk_cache.h"

namespace qd::jit {
namespace {

constexpr uint64_t kDefaultMaxBytes = 1024ull * 1024 * 1024;  // QD_CACHE_MAX_MB unset
constexpr double kDefaultCleaningFactor = 0.25;

struct Limit {
  uint64_t max_bytes;  // 0: no cap
  CachePolicy policy;
  double factor;
};

// QD_CACHE_MAX_MB (0 turns the cap off), read once; qd.init(offline_cache_max_size_of_files=...) overrides it.
Limit limit_from_environment() {
  const char* text = std::getenv("QD_CACHE_MAX_MB");
  if (!text || !*text) return {kDefaultMaxBytes, CachePolicy::kLru, kDefaultCleaningFactor};
  char* end = nullptr;
  double mb = std::strtod(text, &end);
  if (*end != '\0' || !(mb >= 0)) {
    std::fprintf(stderr, "quadrants: warning: QD_CACHE_MAX_MB='%s' is not a non-negative number of megabytes; "
                 "using the default cap of %llu MB.\n", text, static_cast<unsigned long long>(kDefaultMaxBytes >> 20));
    return {kDefaultMaxBytes, CachePolicy::kLru, kDefaultCleaningFactor};
  }
  return {static_cast<uint64_t>(mb * 1024 * 1024), CachePolicy::kLru, kDefaultCleaningFactor};
}

std::mutex g_limit_mutex;
Limit& limit() {
  static Limit value = limit_from_environment();
  return value;
}

struct Entry {
  std::vector<std::string> files;
  uint64_t bytes = 0;
  int64_t last_used = 0;  // newest mtime or atime of its files, in ns
  int64_t created = 0;    // the manifest's mtime (written once, after the compiled file)
  bool has_manifest = false;
};

// `<kernel>-<key>.<ext...>` -> `<kernel>-<key>`; empty for files that are not entries.
std::string stem_of(const std::string& name) {
  if (name.find(".tmp-") != std::string::npos || name.rfind("work-", 0) == 0 || name.rfind("compiler-", 0) == 0) {
    return "";
  }
  size_t dash = name.rfind('-');
  size_t dot = dash == std::string::npos ? std::string::npos : name.find('.', dash);
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

std::map<std::string, Entry> list_entries(const std::string& dir) {
  std::map<std::string, Entry> entries;
  DIR* listing = ::opendir(dir.c_str());
  if (!listing) return entries;
  while (const dirent* item = ::readdir(listing)) {
    std::string name = item->d_name, stem = stem_of(name);
    if (is_temporary_name(name)) remove_if_stale(dir, name);
    struct stat info {};
    if (stem.empty() || ::lstat((dir + "/" + name).c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (info.st_uid != ::geteuid()) continue;
    Entry& entry = entries[stem];
    entry.files.push_back(dir + "/" + name);
    entry.bytes += static_cast<uint64_t>(info.st_size);
    int64_t mtime = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    int64_t atime = static_cast<int64_t>(info.st_atim.tv_sec) * 1000000000 + info.st_atim.tv_nsec;
    entry.last_used = std::max({entry.last_used, mtime, atime});
    if (name.size() > 9 && name.compare(name.size() - 9, 9, ".manifest") == 0) {
      entry.has_manifest = true;
      entry.created = mtime;
    }
  }
  ::closedir(listing);
  return entries;
}

constexpr const char* kUsageLog = "/usage.log";

// The estimate of the entries' total size; nothing when the log is missing, not ours or not a list of sizes.
std::optional<uint64_t> read_usage(const std::string& dir) {
  int fd = ::open((dir + kUsageLog).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::string text;
  bool ours = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid();
  char buf[4096];
  for (ssize_t n; ours && (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (!ours || text.empty()) return std::nullopt;
  uint64_t total = 0, line = 0;
  bool digits = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      line = line * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
    } else if (c == '\n' && digits) {
      total += line;
      line = 0;
      digits = false;
    } else {
      return std::nullopt;
    }
  }
  return total;
}

void append_usage(const std::string& dir, uint64_t bytes) {
  int fd = ::open((dir + kUsageLog).c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;  // gone: the next store lists the directory
  std::string line = std::to_string(bytes) + "\n";
  ssize_t written = ::write(fd, line.data(), line.size());
  (void)written;  // a lost line only delays the next listing
  ::close(fd);
}

void write_usage(const std::string& dir, uint64_t total) {
  try {
    write_file_atomically(dir + kUsageLog, std::to_string(total) + "\n");
  } catch (const std::exception&) {  // a read-only cache: every store lists the directory, as before
  }
}

// The size of the entry whose compiled file is `path`: that file, its manifest and its kept source.
uint64_t entry_bytes(const std::string& path) {
  std::string stem = path.substr(0, path.rfind('.'));
  uint64_t bytes = 0;
  for (const std::string& file : {path, path + ".manifest", stem + ".cpp", stem + ".cu"}) {
    struct stat info {};
    if (::lstat(file.c_str(), &info) == 0 && S_ISREG(info.st_mode)) bytes += static_cast<uint64_t>(info.st_size);
  }
  return bytes;
}

// Without a cap nothing lists the directory, so its stale temporaries are swept once per process.
void sweep_once(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(dir).second) return;
  }
  if (DIR* listing = ::opendir(dir.c_str())) {
    while (const dirent* item = ::readdir(listing)) {
      if (is_temporary_name(item->d_name)) remove_if_stale(dir, item->d_name);
    }
    ::closedir(listing);
  }
}

void remove_entry(const Entry& entry) {
  for (const std::string& file : entry.files) {  // the manifest first: the entry stops being valid at once
    if (file.size() > 9 && file.compare(file.size() - 9, 9, ".manifest") == 0) ::unlink(file.c_str());
  }
  for (const std::string& file : entry.files) ::unlink(file.c_str());
}

}  // namespace

void set_cache_limit(uint64_t max_bytes, CachePolicy policy, double cleaning_factor) {
  std::lock_guard<std::mutex> lock(g_limit_mutex);
  limit() = {max_bytes, policy, std::clamp(cleaning_factor, 0.0, 1.0)};
}

void reset_cache_limit() {
  std::lock_guard<std::mutex> lock(g_limit_mutex);
  limit() = limit_from_environment();
}

uint64_t cache_limit_bytes() {
  std::lock_guard<std::mutex> lock(g_limit_mutex);
  return limit().policy == CachePolicy::kNever ? 0 : limit().max_bytes;
}

void evict_to_fit(const std::string& keep_path) {
  Limit wanted;
  {
    std::lock_guard<std::mutex> lock(g_limit_mutex);
    wanted = limit();
  }
  if (!disk_cache_enabled()) return;
  std::string dir = cache_dir();
  if (wanted.max_bytes == 0 || wanted.policy == CachePolicy::kNever) {
    sweep_once(dir);
    return;
  }
  uint64_t added = entry_bytes(keep_path);
  std::optional<uint64_t> usage = read_usage(dir);
  if (usage && *usage + added <= wanted.max_bytes) {
    append_usage(dir, added);
    return;
  }
  std::map<std::string, Entry> entries = list_entries(dir);
  uint64_t total = 0;
  for (const auto& [stem, entry] : entries) total += entry.bytes;
  if (total <= wanted.max_bytes) {
    write_usage(dir, total);
    return;
  }
  std::string keep = keep_path.substr(keep_path.rfind('/') + 1);
  keep = stem_of(keep);
  std::vector<const Entry*> order;
  for (const auto& [stem, entry] : entries) {
    if (stem != keep) order.push_back(&entry);  // the entry just stored stays: it was just used
  }
  bool fifo = wanted.policy == CachePolicy::kFifo;
  std::sort(order.begin(), order.end(), [fifo](const Entry* a, const Entry* b) {
    int64_t ka = fifo && a->has_manifest ? a->created : a->last_used;
    int64_t kb = fifo && b->has_manifest ? b->created : b->last_used;
    return ka < kb;
  });
  // Down to (1 - factor) of the cap, so a full cache is not rescanned and trimmed on every store.
  auto low_water = static_cast<uint64_t>(static_cast<double>(wanted.max_bytes) * (1.0 - wanted.factor));
  for (const Entry* entry : order) {
    if (total <= low_water) break;
    remove_entry(*entry);
    total -= std::min(total, entry->bytes);
  }
  write_usage(dir, total);
}

size_t clear_cache() {
  std::string dir = cache_dir();
  std::map<std::string, Entry> entries = list_entries(dir);
  for (const auto& [stem, entry] : entries) remove_entry(entry);
  write_usage(dir, 0);
  return entries.size();
}

}  // namespace qd::jit
