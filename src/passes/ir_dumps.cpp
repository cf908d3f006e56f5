// src/passes/ir_dumps.cpp: writes the pipeline's IR dumps (see ir_dumps.h).
#include "passes/ir_dumps.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "ir/ir_printer.h"
#include "ir/tasks.h"

namespace qd::passes {
namespace {

std::atomic<int> g_dumped_compiles{0};

// Kernel names are IR identifiers; anything else a file name cannot hold becomes '_'.
std::string file_name_part(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out.empty() ? "kernel" : out;
}

std::string zero_padded(int value, int width) {
  std::string text = std::to_string(value);
  return std::string(text.size() < static_cast<size_t>(width) ? width - text.size() : 0, '0') + text;
}

void print_to_stdout(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);  // Python writes to the same stream; keep the order of the two
}

}  // namespace

IrDumps::IrDumps(const ir::DebugSwitches& debug, const ir::Kernel& input)
    : print_(debug.print_ir), dump_(debug.dump_ir), directory_(debug.dump_path) {
  if (!dump_) return;
  prefix_ = file_name_part(input.name) + "_" + zero_padded(g_dumped_compiles.fetch_add(1), 4) + "_";
  write("from_frontend", "// IR from the frontend\n" + ir::print_kernel(input));
}

void IrDumps::after_pass(const char* pass, const ir::Kernel& before, const ir::Kernel& after) {
  if (!print_ && !dump_) return;
  std::string text = "// IR after " + std::string(pass) + "\n" + ir::print_kernel(after);
  // Unchanged nodes are shared, so a pass changed the kernel exactly when the body vector differs.
  if (print_ && after.body != before.body) print_to_stdout(text);
  if (dump_) write("after_" + std::string(pass), text);
}

void IrDumps::after_offload(const ir::Kernel& kernel) {
  if (!print_ && !dump_) return;
  std::string text = "// IR after offload\n" + ir::print_tasks(kernel);
  if (print_) print_to_stdout(text);
  if (dump_) write("after_offload", text);
}

void IrDumps::write(const std::string& stage, const std::string& text) {
  std::string file_name = prefix_ + zero_padded(step_++, 2) + "_" + stage + ".ir";
  std::filesystem::path path = std::filesystem::path(directory_) / file_name;
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  std::ofstream out(path);
  out << text;
  out.close();
  if (out) return;
  static std::once_flag warned;
  std::call_once(warned, [&path] {
    std::fprintf(stderr, "quadrants: warning: QD_DUMP_IR=1 could not write %s; set qd.init(debug_dump_path=...) to a "
                 "writable directory.\n", path.string().c_str());
  });
}

}  // namespace qd::passes
