// tests/cpp/test_codegen_text.cpp: codegen text tests: each tests/ir/codegen/*.ir file holds a kernel and
// `;; contains: TEXT` / `;; lacks: TEXT` lines about the C++ that generate_cpu_source writes for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "codegen/codegen.h"
#include "ir/ir_parser.h"
#include "passes/passes.h"
#include "test_ir_helpers.h"

namespace qd::codegen {
namespace {

TEST(CodegenText, Files) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path("ir/codegen"))) {
    SCOPED_TRACE(entry.path().string());
    std::string text = qd::testing::read_text(entry.path().string());
    std::string source = generate_cpu_source(passes::run_pipeline(ir::parse_kernel(text))).source;
    std::istringstream lines(text);
    int checks = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(";; contains: ", 0) == 0) {
        EXPECT_NE(source.find(line.substr(13)), std::string::npos) << "missing: " << line.substr(13) << "\n" << source;
        ++checks;
      } else if (line.rfind(";; lacks: ", 0) == 0) {
        EXPECT_EQ(source.find(line.substr(10)), std::string::npos) << "unexpected: " << line.substr(10) << "\n" << source;
        ++checks;
      }
    }
    EXPECT_GT(checks, 0);
    ++count;
  }
  EXPECT_GE(count, 3);
}

TEST(CodegenText, AssertMessagesOnlyInDebugMode) {
  const char* text = R"((kernel k (options (default_fp f32) (default_ip i32) (debug DEBUG) (fast_math 0))
    (params (scalar n i32)) (returns void) (body (assert (arg n) "n is zero"))))";
  std::string release = text, debug = text;
  release.replace(release.find("DEBUG"), 5, "0");
  debug.replace(debug.find("DEBUG"), 5, "1");
  GeneratedSource r = generate_cpu_source(passes::run_pipeline(ir::parse_kernel(release)));
  GeneratedSource d = generate_cpu_source(passes::run_pipeline(ir::parse_kernel(debug)));
  EXPECT_TRUE(r.assert_messages.empty());
  EXPECT_EQ(r.source.find("qd_report_assert"), std::string::npos);
  EXPECT_EQ(d.assert_messages, std::vector<std::string>{"n is zero"});
  EXPECT_NE(d.source.find("if (!(p_n)) { qd_report_assert(ctx, 0); return; }"), std::string::npos) << d.source;
}

}  // namespace
}  // namespace qd::codegen
