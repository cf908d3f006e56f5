// tests/cpp/test_ir_helpers.h: shared helpers of the IR, pass, codegen and JIT tests.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "quadrants/errors.h"

namespace qd::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string data_path(const std::string& relative) { return std::string(QD_TEST_DATA_DIR) + "/" + relative; }

// The message of the KernelUserError that `fn` throws, or "" when it throws none.
template <class F>
std::string user_error_of(F fn, int* line = nullptr) {
  try {
    fn();
  } catch (const KernelUserError& e) {
    if (line) *line = e.line;
    return e.what();
  }
  return "";
}

}  // namespace qd::testing
