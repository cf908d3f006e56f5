// src/bindings/bind_cuda_jit.cpp: _core.compile_kernel_cuda / CudaCompiledKernel, generate_cuda_source, nvrtc_available.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "bindings/kernel_warnings.h"
#include "quadrants/cuda_jit.h"

namespace nb = nanobind;

namespace qd::bindings {

void bind_cuda_jit(nb::module_& m) {
  // Held by std::shared_ptr<const CudaCompiledKernel>, like CompiledKernel, so the CUDA launcher can
  // take the Python object back as the C++ kernel.
  nb::class_<CudaCompiledKernel>(m, "CudaCompiledKernel")
      .def_ro("name", &CudaCompiledKernel::name)
      .def_ro("is_ptx", &CudaCompiledKernel::is_ptx)
      .def_prop_ro("warnings", [](const CudaCompiledKernel& k) { return warning_tuples(k.warnings); })
      .def_prop_ro("image_size", [](const CudaCompiledKernel& k) { return k.image.size(); })
      .def_prop_ro("image", [](const CudaCompiledKernel& k) { return nb::bytes(k.image.data(), k.image.size()); })
      .def_prop_ro("tasks",
                   [](const CudaCompiledKernel& k) {
                     std::vector<std::tuple<std::string, bool, int>> tasks;
                     for (const CudaTask& t : k.tasks) tasks.emplace_back(t.function, t.parallel, t.block_dim);
                     return tasks;
                   })
      .def_prop_ro("task_loop_ends",  // per task: (first task, condition param) of each qd.graph.do_while ending there
                   [](const CudaCompiledKernel& k) {
                     std::vector<std::vector<std::pair<int, int>>> ends;
                     for (const CudaTask& t : k.tasks) {
                       ends.emplace_back();
                       for (const CudaLoopEnd& e : t.loop_ends) ends.back().emplace_back(e.first_task, e.cond_param);
                     }
                     return ends;
                   })
      .def_prop_ro("returns",
                   [](const CudaCompiledKernel& k) -> nb::object {  // None, a dtype name, or a tuple of them
                     nb::list names;
                     for (DtypeCode t : k.returns) names.append(nb::str(dtype_name(t).data(), dtype_name(t).size()));
                     if (names.size() == 0) return nb::none();
                     if (names.size() == 1) return nb::borrow(names[0]);
                     return nb::tuple(names);
                   })
      .def_ro("frame_bytes", &CudaCompiledKernel::frame_bytes)
      .def_ro("args_by_value", &CudaCompiledKernel::args_by_value)
      .def_ro("source", &CudaCompiledKernel::source)
      .def_ro("num_params", &CudaCompiledKernel::num_params)
      .def_ro("param_written", &CudaCompiledKernel::param_written)
      .def_ro("debug", &CudaCompiledKernel::debug)
      .def_ro("graph", &CudaCompiledKernel::graph)
      .def_prop_ro("condition",
                   [](const CudaCompiledKernel& k) {  // qd.graph.do_while's condition kernel (graph kernels)
                     nb::dict out;
                     out["image_bytes"] = k.condition.image.size();
                     out["is_ptx"] = k.condition.is_ptx;
                     out["cudadevrt"] = k.condition.cudadevrt;
                     out["unavailable"] = k.condition.unavailable;
                     return out;
                   })
      .def_ro("assert_messages", &CudaCompiledKernel::assert_messages);

  m.def("compile_kernel_cuda", &compile_kernel_cuda, nb::arg("ir_text"), nb::arg("cc_major"), nb::arg("cc_minor"),
        nb::call_guard<nb::gil_scoped_release>(),
        "Compiles kernel IR text to a CUBIN (or PTX) for compute capability cc_major.cc_minor with NVRTC, "
        "through the disk cache; needs no GPU.");
  m.def("generate_cuda_source", &generate_cuda_source, nb::arg("ir_text"),
        "The CUDA C++ generated for kernel IR text (the runtime header not inlined).");
  m.def("nvrtc_available", &nvrtc_available, "Whether NVRTC could be loaded.");
}

}  // namespace qd::bindings
