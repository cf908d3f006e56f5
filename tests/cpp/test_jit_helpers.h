// tests/cpp/test_jit_helpers.h: builds QdArgs and a launch context with a serial, finely chunked parallel_for.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <unistd.h>

#include "quadrants/jit.h"
#include "quadrants/kernel_abi.h"

namespace qd::testing {

// Chunks of 3 iterations, whatever the grain: generated code must be correct for any chunking,
// including chunks that start and end inside a row of an n-d loop.
inline void serial_parallel_for(void*, int64_t n, int64_t, int32_t, QdTaskFn fn, void* closure) {
  for (int64_t begin = 0; begin < n; begin += 3) fn(closure, begin, begin + 3 < n ? begin + 3 : n);
}

struct Launch {
  QdKernelError error{};
  int32_t error_flag = 0;
  QdLaunchContext ctx{nullptr, serial_parallel_for, &error, &error_flag};
  // One QdArg per returned value: a kernel returning (i32, f32) writes two; with room for one, the second
  // overwrote the caller's stack (test_compiled_index's kernel returns two).
  QdArg returned[8]{};
  QdArg& ret = returned[0];

  void operator()(const CompiledKernel& k, const std::vector<QdArg>& args) {
    ASSERT_LE(k.returns.size(), 8u);
    k.entry(args.data(), &ctx, returned);
  }
};

template <class T>
QdArg array_arg(T* data, std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides = {}) {
  QdArg a{};
  a.data = data;
  int d = 0;
  for (int64_t s : shape) a.shape[d++] = s;
  if (strides.size() == 0) {  // C-contiguous
    int64_t stride = 1;
    for (int k = d - 1; k >= 0; --k) {
      a.strides[k] = stride;
      stride *= a.shape[k];
    }
  } else {
    d = 0;
    for (int64_t s : strides) a.strides[d++] = s;
  }
  return a;
}

inline QdArg int_arg(int64_t v) {
  QdArg a{};
  a.scalar.i = v;
  return a;
}

inline QdArg float_arg(double v) {
  QdArg a{};
  a.scalar.f = v;
  return a;
}

// IEEE binary16 bits of a float that f16 represents exactly (the tests only use such values).
inline uint16_t half_bits(float f) {
  if (f == 0.0f) return 0;
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u, exponent = (u >> 23) & 0xffu, mantissa = u & 0x7fffffu;
  return static_cast<uint16_t>(sign | ((exponent - 112) << 10) | (mantissa >> 13));
}

// Points QD_CACHE_DIR at a fresh directory for the lifetime of a test suite.
class JitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/qd_jit_test_XXXXXX";
    cache_dir() = ::mkdtemp(pattern);
    ::setenv("QD_CACHE_DIR", cache_dir().c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::string command = "rm -rf '" + cache_dir() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  static std::string& cache_dir() {
    static std::string dir;
    return dir;
  }
};

}  // namespace qd::testing
