// src/jit/compiled_index.cpp: the compiled-kernel index (see compiled_index.h). An entry is the library's cache key
// and CompiledKernel's fields, length-prefixed; the disk cache verifies the entry (its manifest's SHA-256) and,
// separately, the library it names, so a damaged or forged entry is a miss, never a kernel that runs.
#include "jit/compiled_index.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "ir/debug_switches.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/hash.h"

namespace qd::jit {

namespace {

constexpr const char* kMagic = "qd-compiled-index-1";
std::atomic<int> g_index_hits{0};

std::string entry_name(const std::string& key) { return "compiled_index-" + key + ".bin"; }

// This build of the core (the file holding this code: its path, size, modification time and inode), read once per
// process. An index entry stands for the passes and code generation that made it, which the IR text does not name:
// another build (an upgrade, a rebuild) must not be served libraries and descriptions of the last one. Empty when
// the file cannot be found: then the index is not used.
const std::string& core_identity() {
  static const std::string identity = [] {
    Dl_info info{};
    struct stat file {};
    if (::dladdr(reinterpret_cast<void*>(&core_identity), &info) == 0 || !info.dli_fname ||
        ::stat(info.dli_fname, &file) != 0) {
      return std::string();
    }
    return std::string(info.dli_fname) + "|" + std::to_string(file.st_size) + "|" +
           std::to_string(file.st_mtim.tv_sec) + "." + std::to_string(file.st_mtim.tv_nsec) + "|" +
           std::to_string(file.st_ino);
  }();
  return identity;
}

class Writer {
 public:
  void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i32(int v) { u32(static_cast<uint32_t>(v)); }
  void text(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote; any read past the end, or a count larger than what is left, sets failed().
class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  uint32_t u32() {
    uint32_t v = 0;
    if (in_.size() - pos_ < sizeof v) return fail();
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  int i32() { return static_cast<int>(u32()); }
  std::string text() {
    uint32_t n = u32();
    if (failed_ || in_.size() - pos_ < n) return fail(), std::string();
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // A count of items of at least `item_bytes` each: one that the rest of the entry cannot hold fails.
  uint32_t count(size_t item_bytes) {
    uint32_t n = u32();
    if (!failed_ && n > (in_.size() - pos_) / item_bytes) return fail();
    return n;
  }
  bool failed() const { return failed_; }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  uint32_t fail() {
    failed_ = true;
    pos_ = in_.size();
    return 0;
  }
  const std::string& in_;
  size_t pos_ = 0;
  bool failed_ = false;
};

bool valid_dtype(uint32_t code) { return code < static_cast<uint32_t>(kNumDtypes); }

// The file's text, or "" when it cannot be read.
std::string read_text_file(const std::string& path) {
  std::string text;
  if (!read_file(path, &text)) text.clear();
  return text;
}

}  // namespace

std::string index_key(const std::string& compiled_key) {
  ir::DebugSwitches switches = ir::debug_switches();
  if (switches.print_ir || switches.dump_ir || switches.verify_ir) return "";
  std::string environment = library_environment();
  if (environment.empty() || core_identity().empty()) return "";
  return Hasher().add(kMagic).add(compiled_key).add(environment).add(core_identity()).hex();
}

void store_indexed(const std::string& key, const CompiledKernel& kernel, const std::string& library_key) {
  Writer w;
  w.text(kMagic);
  w.text(library_key);
  w.text(kernel.name);
  w.u32(static_cast<uint32_t>(kernel.returns.size()));
  for (DtypeCode code : kernel.returns) w.u32(static_cast<uint32_t>(code));
  w.i32(kernel.num_params);
  w.u32(static_cast<uint32_t>(kernel.params.size()));
  for (const KernelParam& p : kernel.params) {
    w.u32(p.kind == KernelParam::Kind::scalar ? 0 : 1);
    w.text(p.name);
    w.u32(static_cast<uint32_t>(p.dtype));
    w.i32(p.ndim);
    w.u32(static_cast<uint32_t>(p.element_shape.size()));
    for (int d : p.element_shape) w.i32(d);
    w.u32(p.contiguous ? 1 : 0);
    w.u32(p.writable ? 1 : 0);
  }
  w.u32(kernel.debug ? 1 : 0);
  w.u32(static_cast<uint32_t>(kernel.assert_messages.size()));
  for (const std::string& m : kernel.assert_messages) w.text(m);
  w.u32(static_cast<uint32_t>(kernel.warnings.size()));
  for (const KernelWarning& warning : kernel.warnings) {
    w.text(warning.message);
    w.i32(warning.line);
    w.i32(warning.col);
  }
  w.i32(kernel.num_tasks);
  // Not stored (cache full, read-only): the next process takes the full path. A few hundred bytes beside a library
  // of tens of kilobytes: it does not evict (a tiny cap would otherwise evict the library just stored for it).
  store_named_entry(entry_name(key), key, w.take(), false);
}

std::shared_ptr<CompiledKernel> load_indexed(const std::string& key) {
  std::optional<std::string> bytes = read_named_entry(entry_name(key), key);
  if (!bytes) return nullptr;
  Reader r(*bytes);
  if (r.text() != kMagic) return nullptr;
  std::string library_key = r.text();
  auto out = std::make_shared<CompiledKernel>();
  out->name = r.text();
  for (uint32_t n = r.count(4), k = 0; k < n; ++k) {
    uint32_t code = r.u32();
    if (!valid_dtype(code)) return nullptr;
    out->returns.push_back(static_cast<DtypeCode>(code));
  }
  out->num_params = r.i32();
  for (uint32_t n = r.count(28), k = 0; k < n && !r.failed(); ++k) {
    KernelParam p;
    uint32_t kind = r.u32();
    p.name = r.text();
    uint32_t dtype = r.u32();
    if (kind > 1 || !valid_dtype(dtype)) return nullptr;
    p.kind = kind == 0 ? KernelParam::Kind::scalar : KernelParam::Kind::array;
    p.dtype = static_cast<DtypeCode>(dtype);
    p.ndim = r.i32();
    for (uint32_t dims = r.count(4), d = 0; d < dims; ++d) p.element_shape.push_back(r.i32());
    p.contiguous = r.u32() != 0;
    p.writable = r.u32() != 0;
    out->params.push_back(std::move(p));
  }
  out->debug = r.u32() != 0;
  for (uint32_t n = r.count(4), k = 0; k < n; ++k) out->assert_messages.push_back(r.text());
  for (uint32_t n = r.count(12), k = 0; k < n && !r.failed(); ++k) {
    KernelWarning warning;
    warning.message = r.text();
    warning.line = r.i32();
    warning.col = r.i32();
    out->warnings.push_back(std::move(warning));
  }
  out->num_tasks = r.i32();
  if (r.failed() || !r.at_end() || library_key.empty() || out->num_params != static_cast<int>(out->params.size())) {
    return nullptr;
  }
  LoadedLibrary lib = load_by_key(out->name, library_key);
  if (!lib.entry) return nullptr;  // evicted or damaged: compiled again, and the index entry rewritten
  out->entry = lib.entry;
  out->library = lib.handle;
  out->library_path = lib.library_path;
  out->source_path = lib.source_path;  // read by kernel_source() when asked: 43 KB a warm first call need not read
  g_index_hits.fetch_add(1);
  return out;
}

int index_hits() { return g_index_hits.load(); }

namespace {
std::atomic<int> g_compiled_reuses{0};
}  // namespace

void note_compiled_reuse() { g_compiled_reuses.fetch_add(1); }
int compiled_reuses() { return g_compiled_reuses.load(); }

}  // namespace qd::jit

namespace qd {

std::string kernel_source(const CompiledKernel& kernel) {
  return kernel.source.empty() && !kernel.source_path.empty() ? jit::read_text_file(kernel.source_path) : kernel.source;
}

}  // namespace qd
