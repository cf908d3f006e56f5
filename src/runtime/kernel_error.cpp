// src/runtime/kernel_error.cpp: the messages of errors reported by running kernels, shared by CPU and CUDA.
#include "runtime/kernel_error.h"

#include <cstdio>
#include <cstring>
#include <sstream>

#include "quadrants/errors.h"

namespace qd {
namespace {

std::string index_text(const int64_t* values, int n) {
  std::ostringstream out;
  out << "(";
  for (int d = 0; d < n; ++d) out << (d ? ", " : "") << values[d];
  out << (n == 1 ? ",)" : ")");
  return out.str();
}

// One conversion (`spec`, from '%' through its letter) applied to one value's bits.
std::string format_value(const std::string& spec, int64_t bits) {
  char letter = spec.back();
  auto apply = [&](auto value) {
    int n = std::snprintf(nullptr, 0, spec.c_str(), value);
    if (n < 0 || n > (1 << 16)) return spec;  // an absurd width: show the spec rather than megabytes
    std::string out(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), spec.c_str(), value);
    out.resize(static_cast<size_t>(n));
    return out;
  };
  if (letter == 'd' || letter == 'i') return apply(static_cast<long long>(bits));
  if (std::strchr("uoxX", letter)) return apply(static_cast<unsigned long long>(bits));
  double real;
  std::memcpy(&real, &bits, sizeof real);
  return apply(real);
}

}  // namespace

std::string format_assert_message(const std::string& message_template, const int64_t* values, int count) {
  std::string out;
  int used = 0;
  for (size_t i = 0; i < message_template.size(); ++i) {
    if (message_template[i] != '%') {
      out += message_template[i];
      continue;
    }
    if (i + 1 < message_template.size() && message_template[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t end = message_template.find_first_of("diouxXfFeEgGaA", i + 1);
    QD_ASSERT(end != std::string::npos && used < count, "format_assert_message(): malformed assert message");
    out += format_value(message_template.substr(i, end + 1 - i), values[used++]);
    i = end;
  }
  return out;
}

void raise_kernel_error(const std::string& kernel, const QdKernelError& error, const QdArg* args, int num_args,
                        const std::vector<std::string>& arg_names,
                        const std::vector<std::string>* assert_messages) {
  if (error.code == 2) {
    bool known = assert_messages && error.arg_index >= 0 &&
                 error.arg_index < static_cast<int>(assert_messages->size());
    int count = error.ndim >= 0 && error.ndim <= QD_MAX_NDIM ? error.ndim : 0;
    throw AssertionError("Kernel '" + kernel + "': assertion failed: " +
                         (known ? format_assert_message((*assert_messages)[error.arg_index], error.index, count)
                                : std::string("(no message)")));
  }
  if (error.code == 6) {  // a qd.simt shared array: arg_index is its description among the messages
    bool known = assert_messages && error.arg_index >= 0 &&
                 error.arg_index < static_cast<int>(assert_messages->size());
    std::string array = known ? (*assert_messages)[error.arg_index] : std::string("a shared array");
    throw OutOfBoundError("Out of bound access: Kernel '" + kernel + "': index " + index_text(error.index, error.ndim) +
                          " is out of bounds for " + array + " in dimension " + std::to_string(error.dim) + ".");
  }
  if (error.code == 4) {
    throw std::runtime_error("Kernel '" + kernel + "': the threads of a block stopped waiting for each other: some wait at "
                       "a qd.simt subgroup operation while the rest of their subgroup waits at a block barrier. "
                       "Call block and subgroup operations from control flow that every thread of the block (or "
                       "subgroup) takes.");
  }
  if (error.code == 5) {
    throw AssertionError("Kernel '" + kernel + "': adstack overflow: a serial loop in its reverse-mode autodiff ran "
                         "more iterations than an AD stack holds (" + std::to_string(error.index[0]) +
                         " values; the stack keeps each iteration's loop-carried locals). Raise the capacity with "
                         "qd.init(ad_stack_size=N), N at least the loop's trip count.");
  }
  QD_ASSERT(error.arg_index >= 0 && error.arg_index < num_args && error.ndim >= 0 && error.ndim <= QD_MAX_NDIM,
            "raise_kernel_error(): malformed kernel error record");
  std::string name = error.arg_index < static_cast<int>(arg_names.size()) ? "'" + arg_names[error.arg_index] + "'"
                                                                          : "#" + std::to_string(error.arg_index);
  if (error.code == 3) {
    throw ValueError("Kernel '" + kernel + "': " + name + " has " + std::to_string(error.index[0]) +
                     " elements in dimension " + std::to_string(error.dim) +
                     ", more than the kernel's i32 indices can count (2147483647). Call "
                     "qd.init(default_ip=qd.i64) to index it with i64, or split the array.");
  }
  // Upstream's words ("Out of bound access") first, as programs and tests match them.
  throw OutOfBoundError("Out of bound access: Kernel '" + kernel + "': index " + index_text(error.index, error.ndim) +
                        " is out of bounds for " + name + " of shape " +
                        index_text(args[error.arg_index].shape, error.ndim) + " in dimension " +
                        std::to_string(error.dim) + ".");
}

}  // namespace qd
