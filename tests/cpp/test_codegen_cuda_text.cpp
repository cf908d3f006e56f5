// tests/cpp/test_codegen_cuda_text.cpp: CUDA codegen text tests: each tests/ir/codegen_cuda/*.ir file holds a
// kernel and `;; contains: TEXT` / `;; lacks: TEXT` / `;; tasks: F:P:B ...` / `;; frame_bytes: N` lines about
// what generate_cuda_source writes for it. No GPU and no NVRTC needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "codegen/cuda_renderer.h"
#include "ir/ir_parser.h"
#include "passes/passes.h"
#include "test_ir_helpers.h"

namespace qd::codegen {
namespace {

GeneratedCudaSource generate(const std::string& text) {
  return generate_cuda_source(passes::run_pipeline(ir::parse_kernel(text)));
}

// "function:parallel:block_dim" per task, space-separated, in launch order.
std::string task_list(const GeneratedCudaSource& g) {
  std::string out;
  for (const CudaTask& t : g.tasks) {
    out += (out.empty() ? "" : " ") + t.function + ":" + (t.parallel ? "1" : "0") + ":" + std::to_string(t.block_dim);
  }
  return out;
}

int check_line(const std::string& line, const GeneratedCudaSource& g) {
  auto value = [&](size_t prefix) { return line.substr(prefix); };
  if (line.rfind(";; contains: ", 0) == 0) {
    EXPECT_NE(g.source.find(value(13)), std::string::npos) << "missing: " << value(13) << "\n" << g.source;
  } else if (line.rfind(";; lacks: ", 0) == 0) {
    EXPECT_EQ(g.source.find(value(10)), std::string::npos) << "unexpected: " << value(10) << "\n" << g.source;
  } else if (line.rfind(";; tasks: ", 0) == 0) {
    EXPECT_EQ(task_list(g), value(10)) << g.source;
  } else if (line.rfind(";; frame_bytes: ", 0) == 0) {
    EXPECT_EQ(std::to_string(g.frame_bytes), value(16)) << g.source;
  } else {
    return 0;
  }
  return 1;
}

TEST(CodegenCudaText, Files) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path("ir/codegen_cuda"))) {
    SCOPED_TRACE(entry.path().string());
    std::string text = qd::testing::read_text(entry.path().string());
    GeneratedCudaSource g = generate(text);
    std::istringstream lines(text);
    int checks = 0;
    for (std::string line; std::getline(lines, line);) checks += check_line(line, g);
    EXPECT_GT(checks, 0);
    ++count;
  }
  EXPECT_GE(count, 6);
}

TEST(CodegenCudaText, AssertMessagesOnlyInDebugMode) {
  const char* text = R"((kernel k (options (debug DEBUG)) (params (scalar n i32)) (returns void)
    (body (assert (arg n) "n is zero"))))";
  std::string release = text, debug = text;
  release.replace(release.find("DEBUG"), 5, "0");
  debug.replace(debug.find("DEBUG"), 5, "1");
  GeneratedCudaSource r = generate(release), d = generate(debug);
  EXPECT_TRUE(r.assert_messages.empty());
  EXPECT_EQ(r.source.find("qd_report_assert"), std::string::npos);
  EXPECT_EQ(d.assert_messages, std::vector<std::string>{"n is zero"});
  EXPECT_NE(d.source.find("if (!(p_n)) { qd_report_assert(ctx, 0); return; }"), std::string::npos) << d.source;
}

TEST(CodegenCudaText, EmptyKernelHasNoTasks) {
  GeneratedCudaSource g = generate("(kernel k (options) (params) (returns void) (body))");
  EXPECT_TRUE(g.tasks.empty());
  EXPECT_EQ(g.frame_bytes, 0);
}

}  // namespace
}  // namespace qd::codegen
