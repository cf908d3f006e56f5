// src/jit/cache_eviction.cpp: the disk cache's size cap (least recently used entries go first) and clearing it.
//
// An entry is every file named `<kernel>-<key>.<ext>`: the compiled file, its `.manifest` and the kept
// source (.cpp/.cu), grouped by that stem. Its last use is the newest time among its files' modification
// times and the compiled file's access time, which read_verified() sets on each hit. Removal is safe while other processes use
// the cache: a loader reads an entry's bytes through an open descriptor and verifies them before use
// (unlinking does not disturb an open file), and one that finds the manifest or file gone takes it as
// a miss and recompiles. The manifest goes first, so no reader sees an entry half removed as valid.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
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
  if (wanted.max_bytes == 0 || wanted.policy == CachePolicy::kNever || !disk_cache_enabled()) return;
  std::string dir = cache_dir();
  std::map<std::string, Entry> entries = list_entries(dir);
  uint64_t total = 0;
  for (const auto& [stem, entry] : entries) total += entry.bytes;
  if (total <= wanted.max_bytes) return;
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
}

size_t clear_cache() {
  std::map<std::string, Entry> entries = list_entries(cache_dir());
  for (const auto& [stem, entry] : entries) remove_entry(entry);
  return entries.size();
}

}  // namespace qd::jit
