# tests/python/test_device_runtime.py: the CUDA-only (__CUDACC__) code of the runtime header, with and without a GPU.
#
# Generated CUDA code inlines src/codegen/runtime/qd_runtime.h, whose __CUDACC__ branches (PTX half
# conversions, atomicCAS loops on words and on 1-/2-byte lanes, native atomics, the error flag) never
# run on the CPU backend nor on the driver emulation, which compiles the portable branches. Three
# checks cover them here:
# 1. Real NVRTC compiles every device atomic, conversion and error-flag helper, instantiated for every
#    dtype, and the PTX holds the native instructions (skipped where NVRTC is not installed; setup
#    installs the pip package nvidia-cuda-nvrtc).
# 2. A host build of the same branches: the header compiled by the system C++ compiler with __CUDACC__
#    defined, CUDA's atomic functions given host definitions with CUDA's semantics, and each PTX
#    conversion replaced by the host conversion with the same rounding. Eight real threads all hammer
#    four adjacent cells (so 1- and 2-byte lanes share words), and the final values and the multiset
#    of returned old values are compared with a sequential numpy simulation. This catches a wrong
#    operation, a wrong lane mask or a lost update in device code on a machine without a GPU.
# 3. Kernels using the atomics and f16 conversions on a real GPU (skipped without one).
import ctypes
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_HEADER = ROOT / "src" / "codegen" / "runtime" / "qd_runtime.h"
ABI_HEADER = ROOT / "include" / "quadrants" / "kernel_abi.h"

# The stdint.h src/jit/nvrtc.cpp hands to NVRTC: CUDA's LP64 device ABI, with 64-bit types as long long.
NVRTC_STDINT = """#pragma once
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
"""

# dtype: (the header's C type, the unsigned type of the same width that carries its bits)
TYPES = {
    "i8": ("int8_t", "uint8_t"), "u8": ("uint8_t", "uint8_t"),
    "i16": ("int16_t", "uint16_t"), "u16": ("uint16_t", "uint16_t"),
    "i32": ("int32_t", "uint32_t"), "u32": ("uint32_t", "uint32_t"),
    "i64": ("int64_t", "uint64_t"), "u64": ("uint64_t", "uint64_t"),
    "f16": ("qd_half", "uint16_t"), "f32": ("float", "uint32_t"), "f64": ("double", "uint64_t"),
}
FLOAT_OPS = ["add", "sub", "min", "max", "mul", "xchg"]
# "cas": an add done by a qd_atomic_cas retry loop (qd.atomic_cas's helper), so it must end as "add" does; on 1- and
# 2-byte cells it swaps lanes of a shared 32-bit word, where a failed swap must return the lane's current value.
INT_OPS = FLOAT_OPS + ["and", "or", "xor", "cas"]
CASES = [(op, name) for name in TYPES for op in (FLOAT_OPS if name[0] == "f" else INT_OPS)]

# Each cell's (initial value, operand): values only the right type holds (above the signed maximum
# for unsigned types, negatives, non-integral and f16-overflowing floats), so min/max compare by the
# right signedness and add/mul wrap or round at the right width.
CELLS = {
    "i8": [(-128, 3), (100, -7), (-1, 127), (5, -128)],
    "u8": [(200, 7), (1, 255), (128, 3), (255, 129)],
    "i16": [(-32768, 3), (30000, -7), (-1, 32767), (5, -300)],
    "u16": [(40000, 7), (1, 65535), (32768, 3), (65535, 40001)],
    "i32": [(-2**31, 3), (2**31 - 9, -7), (-1, 2**31 - 1), (5, -300)],
    "u32": [(3_000_000_000, 7), (1, 2**32 - 1), (2**31, 3), (2**32 - 1, 2**31 + 1)],
    "i64": [(-2**63, 3), (2**63 - 9, -7), (-1, 2**63 - 1), (5, -300)],
    "u64": [(2**63 + 5, 7), (1, 2**64 - 1), (2**63, 3), (2**64 - 1, 2**63 + 1)],
    "f16": [(0.5, 0.25), (1000.0, -1.75), (-65504.0, 3.0), (1.0, 2.0**-11)],
    "f32": [(0.1, 0.3), (3.0e38, -2.5e-3), (-1.0e-38, 70000.5), (1.0, 2.0**-24)],
    "f64": [(0.1, 0.3), (1e300, -7.25), (-1e-300, 2.0**60 + 1.0), (1.0, 2.0**-53)],
}
# Every thread cycles through the four cells (operation i on cell i % 4), all started together behind a
# barrier, so that even on a busy 2-core machine threads race on every word (a lost update shows).
THREADS, ITERATIONS = 8, 20000
PER_CELL = THREADS * ITERATIONS // 4


def _np_dtype(name):
    return np.dtype({"u": "uint", "i": "int", "f": "float"}[name[0]] + name[1:])


ACCUMULATE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
              "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _simulate(op, name, count):
    """Per cell: the final value and the old values (unsorted) after `count` atomic ops, as numpy computes
    them in the dtype (wrapping ints, IEEE floats). Each cell's threads apply one operand, so the
    sequence of values is the same in any interleaving: a left fold (ufunc.accumulate is sequential)."""
    dt = _np_dtype(name)
    results = []
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for init, value in CELLS[name]:
            op = "add" if op == "cas" else op
            if op == "xchg":
                sequence = np.array([init] + [value] * count, dt)
            else:
                operands = np.array([init] + [value] * count, dt)
                sequence = ACCUMULATE[op].accumulate(operands, dtype=dt)
            results.append((sequence[-1], sequence[:-1]))
    return results


def _bits(name, values):
    return np.array(values, _np_dtype(name)).view(np.dtype(f"uint{_np_dtype(name).itemsize * 8}"))


def _probe_functions():
    """Device functions wrapping each atomic, conversion and error helper with bit-typed arguments."""
    lines = []
    for op, name in CASES:
        t, bits = TYPES[name]
        if op == "cas":
            lines.append(f"QD_PROBE {bits} qd_probe_cas_{name}({bits}* p, {bits} v) {{ {t} tv; QD_BIT_COPY(&tv, &v, "
                         f"sizeof tv); {t}* q = ({t}*)p; {t} old = *q; for (;;) {{ {t} seen = qd_atomic_cas(q, old, "
                         f"qd_wrapping_add(old, tv)); if (seen == old) break; old = seen; }} {bits} out; "
                         "QD_BIT_COPY(&out, &old, sizeof out); return out; }")
            continue
        lines.append(f"QD_PROBE {bits} qd_probe_{op}_{name}({bits}* p, {bits} v) {{ {t} tv; QD_BIT_COPY(&tv, &v, "
                     f"sizeof tv); {t} old = qd_atomic_{op}(({t}*)p, tv); {bits} out; QD_BIT_COPY(&out, &old, sizeof out);"
                     " return out; }")
    lines += [
        "QD_PROBE uint16_t qd_probe_f32_to_f16(float x) { return qd_half(x).bits; }",
        "QD_PROBE uint16_t qd_probe_f64_to_f16(double x) { return qd_half::from_double(x).bits; }",
        "QD_PROBE float qd_probe_f16_to_f32(uint16_t b) { return float(qd_half::from_bits(b)); }",
        "QD_PROBE int32_t qd_probe_claim_error(int32_t* flag) {",
        "  QdLaunchContext ctx = {}; ctx.error_flag = flag; return qd_claim_error(&ctx) ? 1 : 0; }",
        "QD_PROBE int32_t qd_probe_error_raised(int32_t* flag) {",
        "  QdLaunchContext ctx = {}; ctx.error_flag = flag; return qd_error_raised(&ctx) ? 1 : 0; }",
        "QD_PROBE int64_t qd_probe_checked_offset(int32_t* flag, QdKernelError* error, int64_t i, int64_t j) {",
        "  QdArg arg = {}; arg.shape[0] = 3; arg.shape[1] = 4; arg.strides[0] = 4; arg.strides[1] = 1;",
        "  QdLaunchContext ctx = {}; ctx.error = error; ctx.error_flag = flag;",
        "  const int64_t index[2] = {i, j}; return qd_checked_offset<2>(&ctx, &arg, 7, index); }",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------
# 1. Real NVRTC


def _real_nvrtc_path():
    """libnvrtc from the pip package or the system; never QD_NVRTC_PATH, which may be the emulation's."""
    candidates = []
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidates += sorted(Path(root).glob("cu*/lib/libnvrtc.so*")) + sorted(Path(root).glob("cuda_nvrtc/lib/libnvrtc.so*"))
    candidates += [Path("/usr/local/cuda/lib64/libnvrtc.so")]
    for path in candidates:
        if path.exists() and "builtins" not in path.name:
            return str(path)
    return None


NVRTC = _real_nvrtc_path()
needs_nvrtc = pytest.mark.skipif(NVRTC is None, reason="real NVRTC is not installed (pip install nvidia-cuda-nvrtc)")


def _nvrtc_compile(source, headers, arch):
    """(ok, log, ptx) of compiling `source` with real NVRTC for `arch` (compute_XX: PTX)."""
    lib = ctypes.CDLL(NVRTC)
    program = ctypes.c_void_p()
    names = (ctypes.c_char_p * len(headers))(*[name.encode() for name in headers])
    texts = (ctypes.c_char_p * len(headers))(*[text.encode() for text in headers.values()])
    assert lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"device_probe.cu", len(headers),
                                  texts, names) == 0
    options = [f"--gpu-architecture={arch}".encode(), b"--std=c++17"]
    status = lib.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    ptx = b""
    if status == 0:
        lib.nvrtcGetPTXSize(program, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(program, buffer)
        ptx = buffer.value
    lib.nvrtcDestroyProgram(ctypes.byref(program))
    return status == 0, log.value.decode(errors="replace"), ptx.decode(errors="replace")


def _nvrtc_source():
    calls = []
    for op, name in CASES:
        bits = TYPES[name][1]
        calls.append(f"  words[{len(calls)}] = qd_probe_{op}_{name}(({bits}*)cells, ({bits})words[0]);")
    return "\n".join([
        '#include "qd_runtime.h"',
        "#define QD_PROBE static __device__",
        _probe_functions(),
        'extern "C" __global__ void qd_probe_all(uint64_t* words, uint64_t* cells, float* f, double* d,',
        "                                        int32_t* flag, QdKernelError* error) {",
        *calls,
        "  words[100] = qd_probe_f32_to_f16(f[0]) + qd_probe_f64_to_f16(d[0]);",
        "  f[1] = qd_probe_f16_to_f32((uint16_t)words[1]);",
        "  words[101] = qd_probe_claim_error(flag) + qd_probe_error_raised(flag);",
        "  words[102] = (uint64_t)qd_probe_checked_offset(flag, error, (int64_t)words[2], (int64_t)words[3]);",
        "}",
    ]) + "\n"


def _nvrtc_headers():
    return {"stdint.h": NVRTC_STDINT, "kernel_abi.h": ABI_HEADER.read_text(), "qd_runtime.h": RUNTIME_HEADER.read_text()}


@needs_nvrtc
@pytest.mark.parametrize("arch", ["compute_75", "compute_90"])
def test_nvrtc_compiles_every_device_atomic_conversion_and_error_helper(arch):
    ok, log, ptx = _nvrtc_compile(_nvrtc_source(), _nvrtc_headers(), arch)
    assert ok, log
    # The conversions are single PTX instructions, rounding to nearest even.
    for instruction in ("cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rn.f16.f64"):
        assert instruction in ptx, instruction
    # Native atomics where CUDA has them; compare-and-swap loops (words, and lanes of words) elsewhere.
    for pattern in (r"atom(\.\w+)*\.add\.f32", r"atom(\.\w+)*\.add\.f64", r"atom(\.\w+)*\.add\.u64",
                    r"atom(\.\w+)*\.min\.s32", r"atom(\.\w+)*\.min\.u32", r"atom(\.\w+)*\.max\.s64",
                    r"atom(\.\w+)*\.max\.u64", r"atom(\.\w+)*\.exch\.b32", r"atom(\.\w+)*\.and\.b64",
                    r"atom(\.\w+)*\.cas\.b32", r"atom(\.\w+)*\.cas\.b64"):
        assert re.search(pattern, ptx), pattern


@needs_nvrtc
def test_nvrtc_rejects_a_broken_header():
    """The check above can fail: a device branch that does not compile is reported with NVRTC's log."""
    headers = _nvrtc_headers()
    headers["qd_runtime.h"] = headers["qd_runtime.h"].replace("atomicCAS(word, assumed, bits)", "atomicCAS(word, bits)")
    ok, log, _ = _nvrtc_compile(_nvrtc_source(), headers, "compute_90")
    assert not ok and "atomicCAS" in log


# ---------------------------------------------------------------------------------------------------
# 2. The device branches built for the host

# CUDA's built-ins with CUDA's semantics (each returns the old value), on host atomics.
# Built with -nostdinc, as NVRTC sees no C library: the device's stdint.h, and declarations of libm.
HOST_PRELUDE = r"""
extern "C" void* memcpy(void*, const void*, unsigned long);
#define QD_HOST_MATH1(fn) extern "C" double fn(double); extern "C" float fn##f(float);
#define QD_HOST_MATH2(fn) extern "C" double fn(double, double); extern "C" float fn##f(float, float);
QD_HOST_MATH1(floor) QD_HOST_MATH1(ceil) QD_HOST_MATH1(round) QD_HOST_MATH1(fabs) QD_HOST_MATH1(sqrt)
QD_HOST_MATH1(sin) QD_HOST_MATH1(cos) QD_HOST_MATH1(tan) QD_HOST_MATH1(asin) QD_HOST_MATH1(acos)
QD_HOST_MATH1(atan) QD_HOST_MATH1(tanh) QD_HOST_MATH1(exp) QD_HOST_MATH1(log) QD_HOST_MATH1(log2)
QD_HOST_MATH1(exp2) QD_HOST_MATH2(fmod) QD_HOST_MATH2(pow) QD_HOST_MATH2(atan2)
#define __CUDACC__ 1
#define __device__
#define __global__
#define __forceinline__ inline __attribute__((always_inline))
template <class T, class F>
static T qd_host_rmw(T* p, F f) {
  T old;
  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  T next = f(old);
  while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) next = f(old);
  return old;
}
// Every 8th compare-and-swap of a thread first lets the other threads run, so the value its loop read
// has likely changed: each CAS loop's retry path runs, and a loop that did not retry would lose updates.
extern "C" int sched_yield(void);
static thread_local unsigned qd_host_cas_count = 0;
#define QD_HOST_ALL(T)                                                                                     \
  static T atomicCAS(T* p, T compare, T value) {                                                          \
    if (++qd_host_cas_count % 8 == 0) sched_yield();                                                      \
    __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);           \
    return compare;                                                                                       \
  }                                                                                                       \
  static T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }                    \
  static T atomicMin(T* p, T v) { return qd_host_rmw(p, [v](T o) { return v < o ? v : o; }); }           \
  static T atomicMax(T* p, T v) { return qd_host_rmw(p, [v](T o) { return o < v ? v : o; }); }           \
  static T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
QD_HOST_ALL(int)
QD_HOST_ALL(unsigned int)
QD_HOST_ALL(unsigned long long)
static long long atomicMin(long long* p, long long v) { return qd_host_rmw(p, [v](long long o) { return v < o ? v : o; }); }
static long long atomicMax(long long* p, long long v) { return qd_host_rmw(p, [v](long long o) { return o < v ? v : o; }); }
#define QD_HOST_BITWISE(T)                                                                   \
  static T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }       \
  static T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }         \
  static T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
QD_HOST_BITWISE(int)
QD_HOST_BITWISE(unsigned int)
QD_HOST_BITWISE(unsigned long long)
static int atomicSub(int* p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
static unsigned int atomicSub(unsigned int* p, unsigned int v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
static float atomicAdd(float* p, float v) { return qd_host_rmw(p, [v](float o) { return o + v; }); }
static double atomicAdd(double* p, double v) { return qd_host_rmw(p, [v](double o) { return o + v; }); }
static float atomicExch(float* p, float v) { float old; __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST); return old; }
// CUDA's bit-count intrinsics (qd_popcnt/qd_clz/qd_ffs), with CUDA's results for 0 (__clz(0) is 32).
static int __popc(unsigned int x) { return __builtin_popcount(x); }
static int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static int __clz(int x) { return x ? __builtin_clz((unsigned int)x) : 32; }
static int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static int __ffs(int x) { return __builtin_ffs(x); }
static int __ffsll(long long x) { return __builtin_ffsll(x); }
// CUDA's per-SM cycle counter (qd_clock_counter): a monotonic count of the host's.
static long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
// PTX conversions the header uses, by instruction name (the asm statements are rewritten to calls).
static unsigned short qd_ptx_cvt_rn_f16_f32(float x) { _Float16 h = (_Float16)x; unsigned short b; memcpy(&b, &h, 2); return b; }
static unsigned short qd_ptx_cvt_rn_f16_f64(double x) { _Float16 h = (_Float16)x; unsigned short b; memcpy(&b, &h, 2); return b; }
static float qd_ptx_cvt_f32_f16(unsigned short b) { _Float16 h; memcpy(&h, &b, 2); return (float)h; }
static unsigned short qd_ptx_cvt_rz_f16_f32(float x) {  // toward zero: one step back where rn went away
  unsigned short b = qd_ptx_cvt_rn_f16_f32(x);
  float back = qd_ptx_cvt_f32_f16(b);
  return __builtin_fabsf(back) > __builtin_fabsf(x) ? (unsigned short)(b - 1) : b;
}
"""

ASM = re.compile(r'asm\(\s*"([a-z0-9.]+) %0, %1;"\s*:\s*"=\w+"\((\w+)\)\s*:\s*"\w+"\((.*?)\)\);')


def _host_header():
    """The runtime header with each `asm("op %0, %1;" : "=x"(out) : "y"(in));` made `out = qd_ptx_op(in);`."""
    text = ASM.sub(lambda m: f"{m.group(2)} = qd_ptx_{m.group(1).replace('.', '_')}({m.group(3)});",
                   RUNTIME_HEADER.read_text())
    assert "asm(" not in text, "an asm statement of a form this test cannot rewrite: teach _host_header"
    return text


def _driver_source():
    """Runs each case on THREADS real threads and prints the cells' final bits and a digest of the olds."""
    declarations, runs = [], []
    for op, name in CASES:
        bits = TYPES[name][1]
        declarations.append(f'extern "C" {bits} qd_probe_{op}_{name}({bits}*, {bits});')
        cells = ", ".join(f"{int(b)}ull" for b in _bits(name, [c[0] for c in CELLS[name]]))
        values = ", ".join(f"{int(b)}ull" for b in _bits(name, [c[1] for c in CELLS[name]]))
        runs.append(f'  run<{bits}>("{op} {name}", qd_probe_{op}_{name}, {{{cells}}}, {{{values}}});')
    return f"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>
{chr(10).join(declarations)}
extern "C" uint16_t qd_probe_f32_to_f16(float);
extern "C" uint16_t qd_probe_f64_to_f16(double);
extern "C" float qd_probe_f16_to_f32(uint16_t);
extern "C" int32_t qd_probe_claim_error(int32_t*);
extern "C" int32_t qd_probe_error_raised(int32_t*);
extern "C" int64_t qd_probe_checked_offset(int32_t*, void*, int64_t, int64_t);

static uint64_t mix(uint64_t x) {{  // splitmix64: a multiset digest is the sum of mixed elements
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}}

template <class B>
static void run(const char* label, B (*fn)(B*, B), std::vector<unsigned long long> init,
                std::vector<unsigned long long> values) {{
  alignas(8) B cells[4];
  for (int c = 0; c < 4; ++c) cells[c] = (B)init[c];
  std::vector<std::vector<B>> olds({THREADS});
  std::vector<std::thread> threads;
  std::atomic<int> ready(0);
  for (int t = 0; t < {THREADS}; ++t)
    threads.emplace_back([&, t] {{
      olds[t].reserve({ITERATIONS});
      ready.fetch_add(1);
      while (ready.load() < {THREADS}) std::this_thread::yield();
      for (int i = 0; i < {ITERATIONS}; ++i) olds[t].push_back(fn(&cells[i % 4], (B)values[i % 4]));
    }});
  for (auto& thread : threads) thread.join();
  printf("%s", label);
  for (int c = 0; c < 4; ++c) {{
    uint64_t digest = 0;
    for (int t = 0; t < {THREADS}; ++t)
      for (int i = c; i < {ITERATIONS}; i += 4) digest += mix((uint64_t)olds[t][i]);
    printf(" %llu:%llu", (unsigned long long)cells[c], (unsigned long long)digest);
  }}
  printf("\\n");
}}

int main(int argc, char** argv) {{
{chr(10).join(runs)}
  // Conversions: argv[1] holds float bits, argv[2] double bits, argv[3] half bits (hex).
  for (int a = 1; a + 2 < argc; a += 3) {{
    uint32_t f_bits = (uint32_t)strtoull(argv[a], nullptr, 16);
    uint64_t d_bits = strtoull(argv[a + 1], nullptr, 16);
    uint16_t h_bits = (uint16_t)strtoull(argv[a + 2], nullptr, 16);
    float f; double d; __builtin_memcpy(&f, &f_bits, 4); __builtin_memcpy(&d, &d_bits, 8);
    float widened = qd_probe_f16_to_f32(h_bits); uint32_t w_bits; __builtin_memcpy(&w_bits, &widened, 4);
    printf("cvt %x %x %x\\n", qd_probe_f32_to_f16(f), qd_probe_f64_to_f16(d), w_bits);
  }}
  // The error flag: among many racing claims exactly one wins, and an out-of-bounds index is recorded.
  int32_t flag = 0;
  std::vector<int> wins({THREADS});
  std::vector<std::thread> threads;
  for (int t = 0; t < {THREADS}; ++t)
    threads.emplace_back([&, t] {{ for (int i = 0; i < 1000; ++i) wins[t] += qd_probe_claim_error(&flag); }});
  for (auto& thread : threads) thread.join();
  int total = 0;
  for (int w : wins) total += w;
  printf("claims %d raised %d\\n", total, qd_probe_error_raised(&flag));
  int32_t clean = 0;
  struct {{ int32_t code, arg_index, ndim, dim; int64_t index[16]; }} error = {{}};
  long long inside = qd_probe_checked_offset(&clean, &error, 2, 3);
  long long outside = qd_probe_checked_offset(&clean, &error, 1, 4);
  printf("offsets %lld %lld flag %d error %d %d %d %d %lld %lld\\n", inside, outside, clean, error.code,
         error.arg_index, error.ndim, error.dim, (long long)error.index[0], (long long)error.index[1]);
}}
"""


def _digest(bits):
    """The driver's multiset digest: the sum of splitmix64 of each element, modulo 2^64."""
    x = bits.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
        return int(x.sum(dtype=np.uint64))


CONVERSION_CASES = [1 + 3 * 2.0**-11, 1 + 2.0**-11, 2.0**-24, 3 * 2.0**-26, 65519.0, 65520.0, -70000.0,
                    -0.0, float("nan"), 1 + 2.0**-11 + 2.0**-30, 65519.99999, 2.0**-25]
HALF_CASES = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x3E00, 0xC248]


@pytest.fixture(scope="module")
def host_device_run(tmp_path_factory):
    """stdout of the device branches built for the host and run (compiled once per session)."""
    compiler = shlex.split(os.environ.get("CXX", "")) or [shutil.which("c++") or shutil.which("g++")]
    if not compiler[0] or not shutil.which(compiler[0]):
        pytest.skip(f"no C++ compiler ({compiler[0] or 'c++'}) to build the device branches for the host")
    work = tmp_path_factory.mktemp("device_runtime")
    (work / "half.cpp").write_text("_Float16 narrow(float x) { return (_Float16)x; }\n")
    if subprocess.run([*compiler, "-c", "half.cpp", "-o", "half.o"], cwd=work, capture_output=True).returncode:
        pytest.skip("the host C++ compiler has no _Float16, which stands in for the PTX half conversions")
    (work / "include").mkdir()
    (work / "include" / "stdint.h").write_text(NVRTC_STDINT)  # the device's 64-bit types (long long)
    (work / "include" / "kernel_abi.h").write_text(ABI_HEADER.read_text())
    (work / "device.cpp").write_text(HOST_PRELUDE + _host_header() + '#define QD_PROBE extern "C"\n' + _probe_functions())
    (work / "driver.cpp").write_text(_driver_source())
    flags = ["-std=c++17", "-O2", "-fwrapv", "-fno-strict-aliasing", "-pthread"]
    for source in ("device", "driver"):
        include = ["-nostdinc", "-I", str(work / "include")] if source == "device" else []
        built = subprocess.run([*compiler, *flags, *include, "-c", f"{source}.cpp", "-o", f"{source}.o"], cwd=work,
                               capture_output=True, text=True)
        assert built.returncode == 0, built.stderr[-4000:]
    linked = subprocess.run([*compiler, "-pthread", "device.o", "driver.o", "-o", "probe", "-lm"], cwd=work,
                            capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr[-4000:]
    args = []
    for value, half in zip(CONVERSION_CASES, HALF_CASES + [0] * len(CONVERSION_CASES)):
        args += [f"{int(np.float32(value).view(np.uint32)):x}", f"{int(np.float64(value).view(np.uint64)):x}", f"{half:x}"]
    ran = subprocess.run([str(work / "probe"), *args], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-4000:]
    return ran.stdout.splitlines()


@pytest.mark.parametrize("op,name", CASES, ids=[f"{op}-{name}" for op, name in CASES])
def test_device_atomics_built_for_the_host_match_numpy(host_device_run, op, name):
    line = next(line for line in host_device_run if line.startswith(f"{op} {name} "))
    got = [tuple(int(x) for x in cell.split(":")) for cell in line.split()[2:]]
    for cell, ((final, olds), (got_final, got_digest)) in enumerate(zip(_simulate(op, name, PER_CELL), got)):
        want_final = int(_bits(name, [final])[0])
        assert got_final == want_final, (op, name, cell, CELLS[name][cell], got_final, want_final)
        want_digest = _digest(_bits(name, olds))
        assert got_digest == want_digest, f"{op} {name} cell {cell}: the old values returned are wrong"


def test_device_f16_conversions_built_for_the_host_match_numpy(host_device_run):
    got = [line.split()[1:] for line in host_device_run if line.startswith("cvt ")]
    assert len(got) == len(CONVERSION_CASES)
    with np.errstate(over="ignore", invalid="ignore"):
        for value, half, (from_float, from_double, widened) in zip(CONVERSION_CASES, HALF_CASES + [None] * 99, got):
            want_f = np.float32(value).astype(np.float16)
            want_d = np.float64(value).astype(np.float16)
            for got_bits, want in ((from_float, want_f), (from_double, want_d)):
                got_half = np.uint16(int(got_bits, 16)).view(np.float16)
                if np.isnan(want):
                    assert np.isnan(got_half), value
                else:
                    assert int(got_bits, 16) == int(want.view(np.uint16)), (value, got_half, want)
            if half is not None:
                want_w = np.uint16(half).view(np.float16).astype(np.float32)
                assert int(widened, 16) == int(want_w.view(np.uint32)), hex(half)


def test_device_error_flag_built_for_the_host_has_one_winner(host_device_run):
    claims = next(line for line in host_device_run if line.startswith("claims")).split()
    assert claims == ["claims", "1", "raised", "1"]
    offsets = next(line for line in host_device_run if line.startswith("offsets")).split()
    # (2, 3) in a 3x4 array is element 11; (1, 4) is out of bounds in dim 1: code 1 for argument 7.
    assert offsets == ["offsets", "11", "-1", "flag", "1", "error", "1", "7", "2", "1", "1", "4"]


# ---------------------------------------------------------------------------------------------------
# 3. Kernels on the device (the CPU, the emulation, or a GPU)


def _real_gpu():
    driver = os.environ.get("QD_CUDA_DRIVER_PATH", "")
    return _core.cuda_status() == "" and "emulated" not in driver


needs_gpu = pytest.mark.skipif(not _real_gpu(), reason="needs a real CUDA GPU (none here, or only the emulation)")
KERNEL_OPS = {"add": qd.atomic_add, "sub": qd.atomic_sub, "min": qd.atomic_min, "max": qd.atomic_max,
              "mul": qd.atomic_mul, "xchg": qd.atomic_exchange}
KERNEL_TYPES = ["i32", "u32", "i64", "u64", "f32", "f64", "f16"]
KERNEL_CASES = [(op, name) for name in KERNEL_TYPES for op in KERNEL_OPS]


def _run_atomics_kernel(op, name, per_cell):
    dtype, atomic = getattr(qd, name), KERNEL_OPS[op]

    @qd.kernel
    def hammer(cells: qd.types.ndarray(dtype=dtype, ndim=1), values: qd.types.ndarray(dtype=dtype, ndim=1),
               olds: qd.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(olds.shape[0]):
            olds[i] = atomic(cells[i % 4], values[i % 4])

    cells = qd.ndarray(dtype, shape=4)
    values = qd.ndarray(dtype, shape=4)
    olds = qd.ndarray(dtype, shape=4 * per_cell)
    cells.from_numpy(np.array([c[0] for c in CELLS[name]], _np_dtype(name)))
    values.from_numpy(np.array([c[1] for c in CELLS[name]], _np_dtype(name)))
    hammer(cells, values, olds)
    final, old = cells.to_numpy(), olds.to_numpy()
    for cell, (want_final, want_olds) in enumerate(_simulate(op, name, per_cell)):
        np.testing.assert_array_equal(_bits(name, [final[cell]]), _bits(name, [want_final]), err_msg=f"{op} {name} {cell}")
        np.testing.assert_array_equal(np.sort(_bits(name, old[cell::4])), np.sort(_bits(name, want_olds)),
                                      err_msg=f"{op} {name} cell {cell}: the old values returned are wrong")


@pytest.mark.parametrize("op,name", KERNEL_CASES, ids=[f"{op}-{name}" for op, name in KERNEL_CASES])
def test_kernel_atomics_return_old_values_and_combine_like_numpy(op, name):
    """On the CPU with 8 pool threads (more than the cores, so a thread preempted inside a non-atomic
    read-modify-write loses updates; or the CUDA emulation under QD_TEST_ARCH=cuda)."""
    qd.init(arch=qd.cpu, cpu_max_num_threads=8)
    _run_atomics_kernel(op, name, 100000)


@pytest.mark.cpu_only  # needs the CPU pool's real threads; the emulation runs GPU threads one after another
@pytest.mark.parametrize("name", ["i32", "u64", "f32", "f64"])
def test_cpu_kernel_atomic_add_loses_no_updates_under_contention(name):
    """16 pool threads on 2 cores: a non-atomic read-modify-write preempted midway loses updates in
    almost every launch, so twenty launches all exact make a lost update very unlikely to go unseen."""
    qd.init(arch=qd.cpu, cpu_max_num_threads=16)
    dtype = getattr(qd, name)

    # The old value is used, so the adds stay atomics on the shared cells: with an unused result,
    # privatize_atomics would give each chunk private cells and leave only the merges atomic.
    @qd.kernel
    def hammer(cells: qd.types.ndarray(dtype=dtype, ndim=1), n: qd.i32):
        for i in range(n):
            old = qd.atomic_add(cells[i % 4], 1)
            if old < 0:
                cells[i % 4] = 0

    for _ in range(20):
        cells = np.zeros(4, _np_dtype(name))
        hammer(cells, 2_000_000)
        np.testing.assert_array_equal(cells, np.full(4, 500_000, _np_dtype(name)))


@needs_gpu
@pytest.mark.parametrize("op,name", KERNEL_CASES, ids=[f"{op}-{name}" for op, name in KERNEL_CASES])
def test_gpu_atomics_return_old_values_and_combine_like_numpy(op, name):
    qd.init(arch=qd.cuda)
    _run_atomics_kernel(op, name, 250000)


@needs_gpu
def test_gpu_f16_conversions_match_numpy():
    qd.init(arch=qd.cuda)

    @qd.kernel
    def convert(f: qd.types.ndarray(dtype=qd.f32, ndim=1), d: qd.types.ndarray(dtype=qd.f64, ndim=1),
                h: qd.types.ndarray(dtype=qd.f16, ndim=1), from_f: qd.types.ndarray(dtype=qd.f16, ndim=1),
                from_d: qd.types.ndarray(dtype=qd.f16, ndim=1), widened: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(f.shape[0]):
            from_f[i] = qd.cast(f[i], qd.f16)
            from_d[i] = qd.cast(d[i], qd.f16)
            widened[i] = qd.cast(h[i], qd.f32)

    n = len(CONVERSION_CASES)
    halves = np.array(HALF_CASES + [0] * (n - len(HALF_CASES)), np.uint16).view(np.float16)
    inputs = [np.array(CONVERSION_CASES, np.float32), np.array(CONVERSION_CASES, np.float64), halves]
    arrays = []
    for values in inputs + [np.zeros(n, np.float16), np.zeros(n, np.float16), np.zeros(n, np.float32)]:
        array = qd.ndarray(getattr(qd, "f" + str(values.dtype.itemsize * 8)), shape=n)
        array.from_numpy(values)
        arrays.append(array)
    convert(*arrays)
    with np.errstate(over="ignore", invalid="ignore"):
        for got, want in ((arrays[3], inputs[0].astype(np.float16)), (arrays[4], inputs[1].astype(np.float16))):
            got = got.to_numpy()
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_array_equal(got[~np.isnan(want)].view(np.uint16), want[~np.isnan(want)].view(np.uint16))
    np.testing.assert_array_equal(arrays[5].to_numpy(), halves.astype(np.float32))
