# python/quadrants/runtime/__init__.py: the runtime floor: qd.init/reset, archs, options, the disk cache, the compiled core (_core).
"""Floor 2 of the package: process-wide state and what talks to the compiled C++ core (`_core`).
`init` holds `qd.init`, `qd.reset`, `qd.sync`, the architectures and the current configuration; `options`
every option upstream's `qd.init()` takes; `cache` the disk cache of compiled kernels; `compiler` the
fallback C++ compiler; `paths` the installed C++ headers and CMake package; `profiler` the kernel profiler;
`dlpack` the wrapping of DLPack producers; `program` the runtime object (upstream's
`quadrants.lang.impl.get_runtime()`); `extensions` upstream's other arch names and `qd.extension`. It
imports only `quadrants.base`."""
