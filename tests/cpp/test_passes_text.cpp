// tests/cpp/test_passes_text.cpp: Triton-style text tests: each tests/ir/passes/*.ir file names the passes to
// run, holds the input kernel, and either the expected kernel (after a `;; expect` line) or the
// expected user error (`;; error: KIND LINE: MESSAGE`).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "test_ir_helpers.h"

namespace qd::passes {
namespace {

using PassFn = ir::Kernel (*)(const ir::Kernel&);
const std::map<std::string, PassFn> kPasses = {
    {"check_control_flow", check_control_flow}, {"check_names", check_names},
    {"infer_types", infer_types},               {"simplify", simplify},
    {"validate_access", validate_access},
    {"reverse_ad", reverse_ad},
    {"forward_ad", forward_ad},
    {"privatize_atomics", privatize_atomics},
    {"pipeline", run_pipeline},
};

struct TextCase {
  std::vector<std::string> passes;
  std::string input, expected, error;
};

TextCase read_case(const std::string& text) {
  TextCase c;
  std::istringstream lines(text);
  bool after_expect = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(";; passes:", 0) == 0) {
      std::istringstream names(line.substr(10));
      for (std::string name; names >> name;) c.passes.push_back(name);
    } else if (line.rfind(";; error: ", 0) == 0) {
      c.error = line.substr(10);
    } else if (line == ";; expect") {
      after_expect = true;
    } else {
      (after_expect ? c.expected : c.input) += line + "\n";
    }
  }
  return c;
}

std::string run_case(const TextCase& c, std::string* error) {
  ir::Kernel k = ir::parse_kernel(c.input);
  try {
    for (const std::string& name : c.passes) {
      k = kPasses.at(name)(k);
    }
  } catch (const KernelUserError& e) {
    *error = std::string(e.kind == KernelUserError::Kind::syntax ? "syntax " : "type ") + std::to_string(e.line) +
             ": " + e.what();
    return "";
  }
  return ir::print_kernel(k);
}

TEST(PassesText, Files) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path("ir/passes"))) {
    SCOPED_TRACE(entry.path().string());
    TextCase c = read_case(qd::testing::read_text(entry.path().string()));
    ASSERT_FALSE(c.passes.empty()) << "no ';; passes:' line";
    std::string error, printed = run_case(c, &error);
    if (!c.error.empty()) {
      EXPECT_EQ(error, c.error);
    } else {
      ASSERT_EQ(error, "");
      EXPECT_EQ(printed, ir::print_kernel(ir::parse_kernel(c.expected)));
    }
    ++count;
  }
  EXPECT_GE(count, 10);
}

}  // namespace
}  // namespace qd::passes
