// src/runtime/kernel_error.h: turns the error record a kernel wrote (QdKernelError) into an exception.
#pragma once

#include <string>
#include <vector>

#include "quadrants/kernel_abi.h"

namespace qd {

// Throws what the kernel reported, with the same text on every target: code 1 an IndexError naming
// the kernel, the argument (arg_names[i], or "#i"), the index and the shape; code 2 an AssertionError
// with its message (formatted with the values the record carries); code 3 a ValueError for an extent too large for the kernel's i32 index type; code 4
// a RuntimeError for a qd.simt block whose threads stopped waiting for each other; code 5 an
// AssertionError for an AD stack overflow, naming qd.init(ad_stack_size=).
[[noreturn]] void raise_kernel_error(const std::string& kernel, const QdKernelError& error, const QdArg* args,
                                     int num_args, const std::vector<std::string>& arg_names,
                                     const std::vector<std::string>* assert_messages);

// A failed assert's message: `message_template` (a printf template from the renderer, ints under ll)
// with its conversions applied to `values`, the bits the kernel stored. Each conversion's letter says how
// to read its value: d i a long long, u o x X an unsigned long long, the float conversions a double.
std::string format_assert_message(const std::string& message_template, const int64_t* values, int count);

}  // namespace qd
