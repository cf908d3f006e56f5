// tests/cpp/test_jit_spare.cpp: the spare compiler (src/jit/spare_compiler.h): used for the next kernel, never
// by a forked child, falling back when it fails, stopped at exit.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "jit/compiler.h"
#include "jit/disk_cache.h"
#include "jit/spare_compiler.h"
#include "test_ir_helpers.h"
#include "test_jit_helpers.h"

namespace qd::testing {
namespace {

const std::vector<std::string> kCompile = {"c++", "-O0", "-c"};
const std::string kPrefix = "static int qd_prefix_value() { return 7; }\n";

bool is_object(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

class JitSpare : public JitTest {};

TEST_F(JitSpare, NextKernelCompilesOnTheSpare) {
  auto kernel = [](const std::string& name, int value) {
    return "(kernel " + name + " (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n"
           " (params (array x i32 1 () 1 1))\n (returns void)\n (body (parallel_for (i) ((shape x 0)) "
           "(config (block_dim 0) (serialize 0)) ((store x ((var i)) () (bin add (var i) (const int " +
           std::to_string(value) + ")))))))";
  };
  compile_kernel(kernel("spare_first", 11));
  if (!jit::spare_waiting()) GTEST_SKIP() << "the system compiler is not GCC: no spare";
  int before = jit::spare_compiles();
  auto second = compile_kernel(kernel("spare_second", 22));
  EXPECT_EQ(jit::spare_compiles(), before + 1);
  EXPECT_TRUE(jit::spare_waiting());  // the next one started while this one compiled
  std::vector<int32_t> x(10, -1);
  Launch launch;
  launch(*second, {array_arg(x.data(), {10})});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(x[i], i + 22);
}

TEST_F(JitSpare, CompilesTheBodyAfterThePrefix) {
  jit::start_spare(kCompile, kPrefix);
  std::string dir, object;
  std::string source = "// a comment line\n" + kPrefix + "int use() { return qd_prefix_value(); }\n";
  ASSERT_EQ(jit::SpareResult::kBuilt, jit::compile_on_spare(kCompile, kPrefix, source, &dir, &object));
  EXPECT_TRUE(is_object(object));
  jit::remove_tree(dir);
}

TEST_F(JitSpare, SourceOfAnotherShapeLeavesTheSpareWaiting) {
  jit::start_spare(kCompile, kPrefix);
  std::string dir, object;
  auto result = [&](const std::vector<std::string>& argv, const std::string& source) {
    return jit::compile_on_spare(argv, kPrefix, source, &dir, &object);
  };
  EXPECT_EQ(result(kCompile, "int other;\n" + kPrefix), jit::SpareResult::kNoSpare);
  EXPECT_EQ(result({"c++", "-O1", "-c"}, "// c\n" + kPrefix), jit::SpareResult::kNoSpare);
  EXPECT_TRUE(jit::spare_waiting());
}

TEST_F(JitSpare, FailedOrKilledSpareReportsFalse) {
  for (std::vector<std::string> failing : {std::vector<std::string>{"sh", "-c", "exit 3", "sh"},
                                           std::vector<std::string>{"sh", "-c", "kill -9 $$", "sh"}}) {
    jit::start_spare(failing, kPrefix);
    std::string dir = "unset", object = "unset";
    std::string source = "// c\n" + kPrefix + "int x;\n";
    EXPECT_EQ(jit::compile_on_spare(failing, kPrefix, source, &dir, &object), jit::SpareResult::kFailed);
    EXPECT_EQ(object, "unset");
  }
}

TEST_F(JitSpare, ForkedChildNeverWritesIntoTheParentsSpare) {
  jit::start_spare(kCompile, kPrefix);
  pid_t child = ::fork();
  if (child == 0) {
    std::string dir, object;
    bool used = jit::compile_on_spare(kCompile, kPrefix, "// c\n" + kPrefix + "int child;\n", &dir, &object) !=
                jit::SpareResult::kNoSpare;
    ::_exit(used || jit::spare_waiting() ? 1 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::string dir, object;
  std::string source = "// c\n" + kPrefix + "int parent;\n";
  EXPECT_EQ(jit::compile_on_spare(kCompile, kPrefix, source, &dir, &object), jit::SpareResult::kBuilt);
  EXPECT_TRUE(is_object(object));
  jit::remove_tree(dir);
}

// Files under `dir` (recursively), by name.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> found;
  if (DIR* listing = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::vector<std::string> inner = files_under(dir + "/" + name);
      found.push_back(name);
      for (const std::string& file : inner) found.push_back(name + "/" + file);
    }
    ::closedir(listing);
  }
  return found;
}

// Runs `child` in a forked process whose $TMPDIR (where spares keep their files) and kernel cache are a new
// directory, and returns that directory once the child has ended.
template <class Child>
std::string in_child_with_own_cache(Child child) {
  char pattern[] = "/tmp/qd-spare-test-XXXXXX";
  EXPECT_NE(::mkdtemp(pattern), nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("QD_CACHE_DIR", pattern, 1);
    ::setenv("TMPDIR", pattern, 1);
    child();
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return pattern;
}

TEST_F(JitSpare, ExitStopsTheSpareAndRemovesItsFiles) {
  std::string cache = in_child_with_own_cache([] {
    jit::start_spare(kCompile, kPrefix);
    std::exit(jit::spare_waiting() ? 0 : 1);  // exit, not _exit: static destructors stop the spare
  });
  for (const std::string& file : files_under(cache)) EXPECT_EQ(file.find("quadrants-work-"), std::string::npos) << file;
  jit::remove_tree(cache);
}

TEST_F(JitSpare, DisabledSparesStartNoMore) {
  std::string cache = in_child_with_own_cache([] {
    jit::start_spare(kCompile, kPrefix);
    bool was_waiting = jit::spare_waiting();
    jit::disable_spares();
    bool stopped = !jit::spare_waiting();
    jit::start_spare(kCompile, kPrefix);
    std::exit(was_waiting && stopped && !jit::spare_waiting() ? 0 : 1);
  });
  jit::remove_tree(cache);
}

TEST_F(JitSpare, EnvironmentTurnsSparesOff) {
  std::string cache = in_child_with_own_cache([] {
    jit::start_spare(kCompile, kPrefix);
    bool was_waiting = jit::spare_waiting();
    ::setenv("QD_SPARE_COMPILER", "0", 1);
    jit::start_spare(kCompile, kPrefix);  // stops the waiting one, starts none
    bool off = !jit::spare_waiting();
    ::setenv("QD_SPARE_COMPILER", "1", 1);
    jit::start_spare(kCompile, kPrefix);
    std::exit(was_waiting && off && jit::spare_waiting() ? 0 : 1);
  });
  jit::remove_tree(cache);
}

TEST_F(JitSpare, SpareOfAKilledProcessEndsByItself) {
  // _exit skips the destructors, as SIGKILL would: the spare must see the end of its input and finish.
  std::string cache = in_child_with_own_cache([] {
    jit::start_spare(kCompile, kPrefix);
    ::_exit(jit::spare_waiting() ? 0 : 1);
  });
  bool finished = false;
  for (int tries = 0; tries < 300 && !finished; ++tries) {
    for (const std::string& file : files_under(cache)) {
      finished |= file.size() > 9 && file.substr(file.size() - 9) == "/kernel.o";
    }
    if (!finished) ::usleep(100'000);
  }
  EXPECT_TRUE(finished) << "the orphaned spare did not finish within 30 s";
  std::system(("rm -rf '" + cache + "'").c_str());
}

}  // namespace
}  // namespace qd::testing
