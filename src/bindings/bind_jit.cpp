// src/bindings/bind_jit.cpp: _core.compile_kernel / CompiledKernel and the IR helpers print_ir and run_passes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings/kernel_warnings.h"
#include "jit/compiled_index.h"
#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/tiered_build.h"
#include "ir/debug_switches.h"
#include "quadrants/errors.h"
#include "quadrants/jit.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

DtypeCode checked_dtype(const std::string& name) {
  std::optional<DtypeCode> code = dtype_from_name(name);
  if (!code) throw TypeError("Unknown dtype '" + name + "'.");
  return *code;
}

KernelParam cpp_kernel_param(nb::tuple t) {
  KernelParam p;
  bool is_array = nb::cast<std::string>(t[0]) == "array";
  p.kind = is_array ? KernelParam::Kind::array : KernelParam::Kind::scalar;
  p.name = nb::cast<std::string>(t[1]);
  p.dtype = checked_dtype(nb::cast<std::string>(t[2]));
  if (is_array) {
    p.ndim = nb::cast<int>(t[3]);
    p.element_shape = nb::cast<std::vector<int>>(t[4]);
  }
  return p;
}

}  // namespace

void bind_jit(nb::module_& m) {
  // Held by std::shared_ptr<const CompiledKernel>: the launcher casts the Python object back to it.
  nb::class_<CompiledKernel>(m, "CompiledKernel")
      .def_ro("name", &CompiledKernel::name)
      .def_prop_ro("returns",
                   [](const CompiledKernel& k) -> nb::object {  // None, a dtype name, or a tuple of them
                     nb::list names;
                     for (DtypeCode t : k.returns) names.append(nb::str(dtype_name(t).data(), dtype_name(t).size()));
                     if (names.size() == 0) return nb::none();
                     if (names.size() == 1) return nb::borrow(names[0]);
                     return nb::tuple(names);
                   })
      .def_prop_ro("source", [](const CompiledKernel& k) { return kernel_source(k); })
      .def_ro("library_path", &CompiledKernel::library_path)
      .def_ro("num_params", &CompiledKernel::num_params)
      .def_ro("num_tasks", &CompiledKernel::num_tasks)
      .def_prop_ro("tier", [](const CompiledKernel& k) { return k.optimized ? "quick" : "optimized"; })
      .def_ro("debug", &CompiledKernel::debug)
      .def_ro("assert_messages", &CompiledKernel::assert_messages)
      .def_prop_ro("warnings", [](const CompiledKernel& k) { return warning_tuples(k.warnings); });

  m.def(
      "compile_kernel",
      [](const std::string& ir_text) { return compile_kernel(ir_text, tiered_compile_setting()); },
      nb::arg("ir_text"),
      "Compiles kernel IR text (docs/IR.md) to a loaded native kernel, through the disk cache; big kernels missing "
      "from it in two tiers (a quick build now, the optimized one in the background) as set_tiered_compile says.");
  m.def(
      "set_tiered_compile",
      [](const std::string& mode) {
        if (mode == "off") return set_tiered_compile(TieredCompile::off);
        if (mode == "exact") return set_tiered_compile(TieredCompile::exact);
        if (mode == "all") return set_tiered_compile(TieredCompile::all);
        throw nb::value_error(("set_tiered_compile(mode): expected 'off', 'exact' or 'all', but got '" + mode + "'.")
                                  .c_str());
      },
      nb::arg("mode"),
      "Tiered compile for this process: 'off', 'exact' (kernels without fast_math) or 'all' (QD_TIERED_COMPILE).");
  m.def(
      "tiered_compile",
      [] {
        TieredCompile mode = tiered_compile_setting();
        return mode == TieredCompile::off ? "off" : mode == TieredCompile::exact ? "exact" : "all";
      },
      "Tiered compile's mode now: 'off', 'exact' or 'all'.");
  m.def(
      "wait_for_optimized_builds",
      [](double timeout) {
        nb::gil_scoped_release release;  // background builds never need the GIL
        return wait_for_optimized_builds(timeout);
      },
      nb::arg("timeout") = -1.0,
      "Waits until every optimized build of tiered compile has loaded or failed; False if timeout (seconds) passed.");
  m.def("optimized_builds_pending", &jit::optimized_builds_pending,
        "How many optimized builds of tiered compile are queued or running.");
  m.def("compile_cpp_kernel",
        [](const std::string& name, const std::string& source, nb::list params, std::optional<std::string> returns) {
          std::vector<KernelParam> parsed;
          for (nb::handle item : params) parsed.push_back(cpp_kernel_param(nb::cast<nb::tuple>(item)));
          std::optional<DtypeCode> ret;
          if (returns) ret = checked_dtype(*returns);
          return compile_cpp_kernel(name, source, parsed, ret);
        },
        nb::arg("name"), nb::arg("source"), nb::arg("params"), nb::arg("returns").none(),
        "Compiles a hand-written C++ kernel; params are ('scalar', name, dtype) or "
        "('array', name, dtype, ndim, element_shape).");
  m.def("print_ir", &print_ir, nb::arg("ir_text"), "Parses IR text and prints it in canonical form.");
  m.def("run_passes", &run_passes, nb::arg("ir_text"), "The IR text after every compiler pass.");
  m.def("set_print_ir", &qd::ir::set_print_ir, nb::arg("on"),
        "qd.init(print_ir=...): print each kernel's IR to stdout after every pass that changed it.");
  m.def("set_ir_dump_path", &qd::ir::set_ir_dump_path, nb::arg("path"),
        "qd.init(debug_dump_path=...): the directory QD_DUMP_IR=1 writes each compile's per-pass IR files to.");
  m.def("set_disk_cache_enabled", &set_disk_cache_enabled, nb::arg("enabled"),
        "Whether compiled kernels are kept in and loaded from the disk cache (qd.init(offline_cache=...)).");
  m.def("disk_cache_enabled", &disk_cache_enabled, "Whether the disk cache is in use.");
  m.def("compiled_reuses", &jit::compiled_reuses,
        "How many compiles this process answered from a cache of compiled kernels instead of building.");
  m.def("cache_dir_in_use", &cache_directory, "The kernel cache directory, after the privacy checks.");
  m.def(
      "set_cache_limit",
      [](uint64_t max_bytes, const std::string& policy, double factor) {
        jit::CachePolicy p = policy == "never" ? jit::CachePolicy::kNever
                             : policy == "fifo" ? jit::CachePolicy::kFifo
                                                : jit::CachePolicy::kLru;
        jit::set_cache_limit(max_bytes, p, factor);
      },
      nb::arg("max_bytes"), nb::arg("policy"), nb::arg("cleaning_factor"),
      "The disk cache's size cap (0: none), 'lru', 'fifo' or 'never', and the fraction removed when over it.");
  m.def("reset_cache_limit", &jit::reset_cache_limit, "The default size cap: QD_CACHE_MAX_MB, else 1024 MB.");
  m.def("cache_limit_bytes", &jit::cache_limit_bytes, "The disk cache's size cap in bytes; 0 when there is none.");
  m.def(
      "read_cache_entry",
      [](const std::string& file_name, const std::string& key) -> nb::object {
        std::optional<std::string> bytes = jit::read_named_entry(file_name, key);
        if (!bytes) return nb::none();
        return nb::bytes(bytes->data(), bytes->size());
      },
      nb::arg("file_name"), nb::arg("key"),
      "The verified bytes of a named entry of the disk cache (`<stem>-<key>.<ext>`), or None: off, missing or "
      "failing verification.");
  m.def(
      "store_cache_entry",
      [](const std::string& file_name, const std::string& key, nb::bytes data) {
        return jit::store_named_entry(file_name, key, std::string(data.c_str(), data.size()));
      },
      nb::arg("file_name"), nb::arg("key"), nb::arg("data"),
      "Stores a named entry of the disk cache atomically with its manifest; False when the cache is off or "
      "not writable.");
  m.def("clear_disk_cache", &jit::clear_cache, "Removes every entry of the kernel disk cache; returns how many.");
  m.def("set_fallback_compiler", &jit::set_fallback_compiler, nb::arg("command"), nb::arg("notice"),
        "The C++ compiler (argument words) for CPU kernels when CXX is unset and PATH has no c++.");
}

}  // namespace qd::bindings
