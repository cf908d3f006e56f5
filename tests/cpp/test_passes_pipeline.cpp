// tests/cpp/test_passes_pipeline.cpp: the pipeline's debug switches: IR dumps after changing passes, verification.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "test_ir_helpers.h"

namespace qd::passes {
namespace {

const char* kKernel = R"((kernel k (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))
  (params (scalar n i32)) (returns i32) (body (return (bin add (arg n) (bin mul (const int 2) (const int 3)))))))";

TEST(PassesPipeline, DumpsTheIrAfterEachPassThatChangedIt) {
  ::testing::internal::CaptureStderr();
  run_pipeline(ir::parse_kernel(kKernel), ir::DebugSwitches{true, true});
  std::string dump = ::testing::internal::GetCapturedStderr();
  // The two checks change nothing, so only inference and simplification are dumped.
  EXPECT_EQ(dump.find("// IR after check_"), std::string::npos) << dump;
  size_t typed = dump.find("// IR after infer_types\n");
  size_t simplified = dump.find("// IR after simplify\n");
  ASSERT_NE(typed, std::string::npos) << dump;
  ASSERT_NE(simplified, std::string::npos) << dump;
  EXPECT_NE(dump.find("(return (bin add (arg n) (bin mul (const i32 2) (const i32 3))))", typed), std::string::npos);
  EXPECT_NE(dump.find("(return (bin add (arg n) (const i32 6)))", simplified), std::string::npos);
}

TEST(PassesPipeline, QuietWithoutTheSwitch) {
  ::testing::internal::CaptureStderr();
  run_pipeline(ir::parse_kernel(kKernel), ir::DebugSwitches{false, true});
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
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
