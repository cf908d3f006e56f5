// tests/cpp/test_passes_pipeline.cpp: the pipeline's debug switches: IR dumps after changing passes, verification.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "test_ir_helpers.h"

namespace qd::passes {
namespace {

const char* kKernel = R"((kernel k (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))
  (params (scalar n i32)) (returns i32) (body (return (bin add (arg n) (bin mul (const int 2) (const int 3)))))))";

TEST(PassesPipeline, PrintsTheIrAfterEachPassThatChangedIt) {
  ::testing::internal::CaptureStdout();
  run_pipeline(ir::parse_kernel(kKernel), ir::DebugSwitches{true, true});
  std::string dump = ::testing::internal::GetCapturedStdout();
  // The two checks change nothing, so only inference and simplification are printed, then the tasks.
  EXPECT_EQ(dump.find("// IR after check_"), std::string::npos) << dump;
  size_t typed = dump.find("// IR after infer_types\n");
  size_t simplified = dump.find("// IR after simplify\n");
  ASSERT_NE(typed, std::string::npos) << dump;
  ASSERT_NE(simplified, std::string::npos) << dump;
  EXPECT_NE(dump.find("(return (bin add (arg n) (bin mul (const i32 2) (const i32 3))))", typed), std::string::npos);
  EXPECT_NE(dump.find("(return (bin add (arg n) (const i32 6)))", simplified), std::string::npos);
  EXPECT_NE(dump.find("// IR after offload\n// kernel k: 1 task\n// task 0: serial\n", simplified), std::string::npos);
}

TEST(PassesPipeline, QuietWithoutTheSwitches) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  run_pipeline(ir::parse_kernel(kKernel), ir::DebugSwitches{false, true});
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

const char* kNamedLoops = R"((kernel two_loops (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))
  (params (array a i32 1 () 1 1)) (returns void)
  (body
    (parallel_for (i) ((shape a 0)) (config (block_dim 0) (serialize 0) (name "fill_a")) (
      (store a ((var i)) () (var i))))
    (decl s i32 (const int 1))
    (parallel_for (i) ((shape a 0)) (config (block_dim 0) (serialize 1)) ((store a ((var i)) () (var s)))))))";

// QD_DUMP_IR=1: a file per stage in the dump directory, the last one the kernel split into its tasks.
TEST(PassesPipeline, WritesAFilePerStageIntoTheDumpDirectory) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "qd_test_ir_dumps";
  std::filesystem::remove_all(dir);
  ir::DebugSwitches debug{false, true, true, (dir / "nested").string()};  // created when missing
  run_pipeline(ir::parse_kernel(kNamedLoops), debug);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "nested")) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 11u);  // from_frontend, nine passes, after_offload
  EXPECT_EQ(names.front().substr(0, 10), "two_loops_");
  EXPECT_NE(names.front().find("_00_from_frontend.ir"), std::string::npos) << names.front();
  EXPECT_NE(names[3].find("_03_after_infer_types.ir"), std::string::npos) << names[3];
  EXPECT_NE(names.back().find("_10_after_offload.ir"), std::string::npos) << names.back();
  std::string typed = qd::testing::read_text((dir / "nested" / names[3]).string());
  EXPECT_EQ(typed.rfind("// IR after infer_types\n(kernel two_loops", 0), 0u) << typed;
  std::string offload = qd::testing::read_text((dir / "nested" / names.back()).string());
  const char* expected_start =
      "// IR after offload\n// kernel two_loops: 3 tasks\n// task 0: parallel_for loop_name=fill_a\n"
      "(parallel_for (i) ((shape a 0)) (config (block_dim 0) (serialize 0) (name \"fill_a\"))";
  EXPECT_EQ(offload.rfind(expected_start, 0), 0u) << offload;
  EXPECT_NE(offload.find("// task 1: serial\n(decl s i32 (const i32 1))\n// task 2: parallel_for serialize\n"),
            std::string::npos)
      << offload;
  // A second compile of a kernel with the same name gets files of its own.
  run_pipeline(ir::parse_kernel(kNamedLoops), debug);
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "nested")) count += entry.is_regular_file();
  EXPECT_EQ(count, 22u);
  std::filesystem::remove_all(dir);
}

// On every kernel of the text tests that compiles: the output is typed, prints and parses back
// to the same text, and running the pipeline again changes nothing.
TEST(PassesPipeline, OutputIsAFixedPoint) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path("ir/passes"))) {
    std::string text = qd::testing::read_text(entry.path().string());
    text = text.substr(0, text.find(";; expect\n"));
    if (text.find(";; error:") != std::string::npos) continue;
    SCOPED_TRACE(entry.path().string());
    ir::Kernel once = run_pipeline(ir::parse_kernel(text), ir::DebugSwitches{false, true});
    ir::verify(once, ir::Stage::typed);
    std::string printed = ir::print_kernel(once);
    EXPECT_EQ(ir::print_kernel(ir::parse_kernel(printed)), printed);
    EXPECT_EQ(ir::print_kernel(run_pipeline(ir::parse_kernel(printed), ir::DebugSwitches{false, true})), printed);
    ++count;
  }
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace qd::passes
