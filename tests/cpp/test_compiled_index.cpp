// tests/cpp/test_compiled_index.cpp: a warm compile_kernel comes from the compiled-kernel index, describes the
// kernel as the full path did, and falls back to the full path when the entry or its library is damaged or gone.
#include <gtest/gtest.h>
#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "jit/compiled_index.h"
#include "jit/compiler.h"
#include "test_jit_helpers.h"

namespace qd::testing {
namespace {

class CompiledIndex : public JitTest {
 protected:
  // The index entries in the cache directory.
  std::vector<std::string> entries() {
    std::vector<std::string> found;
    if (DIR* listing = ::opendir(cache_dir().c_str())) {
      while (dirent* e = ::readdir(listing)) {
        std::string name = e->d_name;
        if (name.rfind("compiled_index-", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".bin") {
          found.push_back(cache_dir() + "/" + name);
        }
      }
      ::closedir(listing);
    }
    return found;
  }
};

// Two returned values, a debug assert and an i32 array: every field the index records is exercised.
std::string checked_kernel(const std::string& name) {
  return "(kernel " + name + " (options (default_fp f32) (default_ip i32) (debug 1) (fast_math 0))\n"
         " (params (array x i32 1 () 1 1) (scalar n i32))\n (returns i32 f32)\n"
         " (body (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0))"
         " ((assert (bin lt (var i) (arg n)) \"i is below n\") (store x ((var i)) () (bin mul (var i) (const int 3)))))"
         " (return (arg n) (const float 2.5))))";
}

TEST_F(CompiledIndex, AWarmCompileComesFromTheIndexAndDescribesTheKernelAsBefore) {
  std::string text = checked_kernel("indexed");
  auto first = compile_kernel(text);
  ASSERT_EQ(entries().size(), 1u);
  CompiledKernel expected = *first;
  first.reset();  // unloaded: the next compile reads the disk cache
  int hits = jit::index_hits(), runs = jit::compiler_runs();
  auto second = compile_kernel(text);
  EXPECT_EQ(jit::index_hits(), hits + 1);
  EXPECT_EQ(jit::compiler_runs(), runs);
  EXPECT_EQ(second->name, expected.name);
  EXPECT_EQ(second->returns, expected.returns);
  EXPECT_EQ(second->num_params, expected.num_params);
  ASSERT_EQ(second->params.size(), expected.params.size());
  for (size_t k = 0; k < expected.params.size(); ++k) {
    EXPECT_EQ(second->params[k].name, expected.params[k].name);
    EXPECT_EQ(second->params[k].kind, expected.params[k].kind);
    EXPECT_EQ(second->params[k].dtype, expected.params[k].dtype);
    EXPECT_EQ(second->params[k].ndim, expected.params[k].ndim);
    EXPECT_EQ(second->params[k].element_shape, expected.params[k].element_shape);
    EXPECT_EQ(second->params[k].contiguous, expected.params[k].contiguous);
    EXPECT_EQ(second->params[k].writable, expected.params[k].writable);
  }
  EXPECT_EQ(second->debug, expected.debug);
  EXPECT_EQ(second->assert_messages, expected.assert_messages);
  EXPECT_EQ(second->num_tasks, expected.num_tasks);
  EXPECT_TRUE(second->source.empty());  // left in the cache until asked for
  EXPECT_EQ(kernel_source(*second), expected.source);
  EXPECT_EQ(second->library_path, expected.library_path);
  std::vector<int32_t> x(5);
  Launch launch;
  launch(*second, {array_arg(x.data(), {5}), int_arg(9)});
  EXPECT_EQ(x, (std::vector<int32_t>{0, 3, 6, 9, 12}));
}

TEST_F(CompiledIndex, ADamagedEntryIsAMissAndIsWrittenAgain) {
  std::string text = checked_kernel("damaged");
  for (const std::string& entry : entries()) ::unlink(entry.c_str());
  compile_kernel(text).reset();
  std::vector<std::string> written = entries();
  ASSERT_EQ(written.size(), 1u);
  {
    std::fstream f(written[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('\x7f');  // the manifest's digest no longer matches
  }
  int hits = jit::index_hits(), runs = jit::compiler_runs();
  auto again = compile_kernel(text);
  EXPECT_EQ(jit::index_hits(), hits);  // not served from the damaged entry
  EXPECT_EQ(jit::compiler_runs(), runs);  // the library itself is still cached
  std::vector<int32_t> x(2);
  Launch launch;
  launch(*again, {array_arg(x.data(), {2}), int_arg(9)});
  EXPECT_EQ(x, (std::vector<int32_t>{0, 3}));
  again.reset();
  auto third = compile_kernel(text);  // the entry was written again
  EXPECT_EQ(jit::index_hits(), hits + 1);
}

TEST_F(CompiledIndex, AnEntryWhoseLibraryIsGoneCompilesAgain) {
  std::string text = checked_kernel("evicted");
  auto first = compile_kernel(text);
  std::string library = first->library_path;
  first.reset();
  ASSERT_EQ(::unlink((library + ".manifest").c_str()), 0);
  int hits = jit::index_hits(), runs = jit::compiler_runs();
  auto again = compile_kernel(text);
  EXPECT_EQ(jit::index_hits(), hits);
  EXPECT_EQ(jit::compiler_runs(), runs + 1);
  std::vector<int32_t> x(3);
  Launch launch;
  launch(*again, {array_arg(x.data(), {3}), int_arg(9)});
  EXPECT_EQ(x, (std::vector<int32_t>{0, 3, 6}));
}

}  // namespace
}  // namespace qd::testing
