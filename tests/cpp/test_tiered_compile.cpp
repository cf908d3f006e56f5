// tests/cpp/test_tiered_compile.cpp: tiered compile through the launch module: a kernel's quick build runs first,
// its optimized build is swapped in between two launches only while no kernel runs, results are bit-identical in
// both, the cache keeps the optimized entry only, and fast_math kernels are tiered only when asked.
#include <gtest/gtest.h>
#include <dirent.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "jit/tiered_build.h"
#include "quadrants/launch.h"
#include "runtime/launch.h"
#include "test_jit_helpers.h"
#include "test_launch_helpers.h"

namespace qd::testing {
namespace {

class TieredCompileTest : public JitTest {
 protected:
  void SetUp() override {
    set_target(Target{});
    ::setenv("QD_TIERED_COMPILE_BYTES", "0", 1);  // tier even this small kernel
  }
  void TearDown() override { ::unsetenv("QD_TIERED_COMPILE_BYTES"); }

  std::unique_ptr<KernelLauncher> saxpy(TieredCompile mode) {
    return std::make_unique<KernelLauncher>("saxpy", saxpy_params(), [this, mode](const CompileRequest& request) {
      compiled = compile_kernel(saxpy_ir(request), mode);
      return CompiledVariant{compiled, nullptr, {}};
    });
  }

  std::shared_ptr<const CompiledKernel> compiled;
};

// y = a * x + y with two roundings, as IEEE mode promises (an FMA would round once).
std::vector<float> expected_saxpy(float a, const std::vector<float>& x, std::vector<float> y) {
  for (size_t i = 0; i < x.size(); ++i) {
    volatile float product = a * x[i];
    y[i] = product + y[i];
  }
  return y;
}

std::vector<std::string> cache_files_with(const std::string& dir, const std::string& part) {
  std::vector<std::string> found;
  if (DIR* listing = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(listing)) {
      if (std::strstr(entry->d_name, part.c_str())) found.push_back(entry->d_name);
    }
    ::closedir(listing);
  }
  return found;
}

TEST_F(TieredCompileTest, SwapsOnlyWhileNoKernelRunsAndGivesTheSameBits) {
  auto launcher = saxpy(TieredCompile::exact);
  // Values whose products round: a fused multiply-add would differ from two roundings in many of them.
  std::vector<float> x(4099), y0(4099);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = 1.0f / static_cast<float>(i + 3) + static_cast<float>(i) * 1e-3f;
    y0[i] = -0.3333333f * static_cast<float>(i % 17) + 1e-7f * static_cast<float>(i);
  }
  const float a = 1.1f;
  std::vector<float> want = expected_saxpy(a, x, y0);
  auto run = [&] {
    std::vector<float> y = y0;
    launcher->launch({KernelArg::of_float(a), KernelArg::array(float_view(x.data(), static_cast<int64_t>(x.size()))),
                      KernelArg::array(float_view(y.data(), static_cast<int64_t>(y.size())))});
    return y;
  };
  {
    // A kernel "running" in another thread: the gate held shared, so no launch may swap.
    std::shared_lock<std::shared_mutex> other_kernel(launch_gate());
    EXPECT_EQ(0, std::memcmp(run().data(), want.data(), want.size() * sizeof(float)));  // the quick build
    ASSERT_TRUE(compiled && compiled->optimized);
    EXPECT_EQ(launcher->quick_variants(), 1);
    ASSERT_TRUE(wait_for_optimized_builds(120));
    ASSERT_EQ(compiled->optimized->state.load(), OptimizedBuild::kReady);
    EXPECT_NE(compiled->optimized->entry, compiled->entry);
    EXPECT_EQ(0, std::memcmp(run().data(), want.data(), want.size() * sizeof(float)));
    EXPECT_EQ(launcher->quick_variants(), 1);  // built, but not swapped while a kernel runs
  }
  EXPECT_EQ(0, std::memcmp(run().data(), want.data(), want.size() * sizeof(float)));  // the optimized build
  EXPECT_EQ(launcher->quick_variants(), 0);
  EXPECT_EQ(0, std::memcmp(run().data(), want.data(), want.size() * sizeof(float)));
  // The cache keeps the optimized build; the quick entry went once the optimized one was stored.
  EXPECT_EQ(cache_files_with(cache_dir(), "saxpy-quick-").size(), 0u);
  EXPECT_EQ(cache_files_with(cache_dir(), ".so.manifest").size(), 1u);
}

TEST_F(TieredCompileTest, KnobsAndFastMath) {
  std::string ir = sum_ir();
  EXPECT_FALSE(compile_kernel(ir, TieredCompile::off)->optimized);
  std::string fast = ir;
  fast.replace(fast.find("(fast_math 0)"), 13, "(fast_math 1)");
  // fast_math kernels may round otherwise at -O1 than at -O3: tiered only under `all`.
  EXPECT_FALSE(compile_kernel(fast, TieredCompile::exact)->optimized);
  fast.replace(fast.find("(kernel total"), 13, "(kernel total_fm");  // not the cached optimized entry
  EXPECT_TRUE(compile_kernel(fast, TieredCompile::all)->optimized);
  ::setenv("QD_TIERED_COMPILE_BYTES", "100000000", 1);  // below the threshold: one tier
  std::string other = ir;
  other.replace(other.find("(kernel total"), 13, "(kernel total_2");
  EXPECT_FALSE(compile_kernel(other, TieredCompile::exact)->optimized);
  EXPECT_TRUE(wait_for_optimized_builds(120));
}

}  // namespace
}  // namespace qd::testing
