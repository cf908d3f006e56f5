// tests/cpp/test_ir_parser.cpp: the IR parser and printer: round trips and messages for malformed text.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/ir_parser.h"
#include "ir/ir_printer.h"
#include "test_ir_helpers.h"

namespace qd::ir {
namespace {

const char* kSaxpy = R"((kernel saxpy
  (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))
  (params
    (scalar a f32)
    (array x f32 1 () 1 0)
    (array y f32 1 () 0 1))
  (returns void)
  (body
    (loc 3 4 (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0)) (
      (loc 4 8 (store y ((var i)) () (bin add (bin mul (arg a) (load x ((var i)) ())) (load y ((var i)) ())))))))))
)";

TEST(IrParser, PrintsWhatItParses) {
  std::string printed = print_kernel(parse_kernel(kSaxpy));
  EXPECT_EQ(printed, kSaxpy);
}

TEST(IrParser, ReadsEveryConstruct) {
  Kernel k = parse_kernel(kSaxpy);
  EXPECT_EQ(k.name, "saxpy");
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[1].kind, Param::Kind::array);
  EXPECT_TRUE(k.params[1].contiguous);
  EXPECT_FALSE(k.params[1].writable);
  ASSERT_EQ(k.body.size(), 1u);
  EXPECT_EQ(k.body[0]->loc.line, 3);
  EXPECT_EQ(k.body[0]->loc.col, 4);
  const ParallelFor* loop = as<ParallelFor>(k.body[0]);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->vars, std::vector<std::string>{"i"});
}

// Every file in tests/ir/roundtrip/ prints back to itself exactly.
TEST(IrParser, RoundTripFiles) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path("ir/roundtrip"))) {
    std::string text = qd::testing::read_text(entry.path().string());
    EXPECT_EQ(print_kernel(parse_kernel(text)), text) << entry.path();
    ++count;
  }
  EXPECT_GT(count, 0);
}

TEST(IrParser, FloatsRoundTripExactly) {
  for (double v : {0.1, 1.0 / 3.0, 1e300, -2.5e-310, 3.0}) {
    std::string text = format_float(v);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
  }
  EXPECT_EQ(format_float(3.0), "3.0");
}

std::string parse_error(const std::string& text) {
  try {
    parse_kernel(text);
  } catch (const ValueError& e) {
    return e.what();
  }
  return "";
}

TEST(IrParser, MalformedTextNamesLineAndColumn) {
  EXPECT_EQ(parse_error("(kernel k (options) (params) (returns void)\n  (body (frob)))"),
            "IR text, line 2 column 9: unknown statement (frob ...).");
  EXPECT_EQ(parse_error("(kernel k (options) (params) (returns i33) (body))"),
            "IR text, line 1 column 39: expected a type (u1 i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64), found 'i33'.");
  EXPECT_EQ(parse_error("(kernel k (options) (params) (returns void) (body)"),
            "IR text, line 1 column 1: this '(' is never closed.");
  EXPECT_EQ(parse_error("(kernel k (options) (params) (returns void) (body (decl x (bin frob (const int 1) (const int 2)))))"),
            "IR text, line 1 column 64: unknown binary operator 'frob'.");
}

}  // namespace
}  // namespace qd::ir
