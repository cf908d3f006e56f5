// src/ir/tasks.cpp: splits a kernel's top level into its tasks, and prints them for IR dumps.
#include "ir/tasks.h"

#include "ir/ir_printer.h"

namespace qd::ir {

std::vector<Task> split_into_tasks(const Kernel& kernel) {
  std::vector<Task> tasks;
  for (const Stmt& s : kernel.body) {
    if (const ParallelFor* loop = as<ParallelFor>(s)) {
      tasks.push_back({loop, {s}});
      continue;
    }
    if (tasks.empty() || tasks.back().loop) tasks.push_back({nullptr, {}});
    tasks.back().body.push_back(s);
  }
  return tasks;
}

std::string print_tasks(const Kernel& kernel) {
  std::vector<Task> tasks = split_into_tasks(kernel);
  std::string out =
      "// kernel " + kernel.name + ": " + std::to_string(tasks.size()) + (tasks.size() == 1 ? " task\n" : " tasks\n");
  for (size_t k = 0; k < tasks.size(); ++k) {
    const Task& task = tasks[k];
    out += "// task " + std::to_string(k) + ": " + (task.loop ? "parallel_for" : "serial");
    if (task.loop && task.loop->serialize) out += " serialize";
    if (task.loop && !task.loop->name.empty()) out += " loop_name=" + task.loop->name;
    out += "\n";
    for (const Stmt& s : task.body) out += print_statement(s) + "\n";
  }
  return out;
}

}  // namespace qd::ir
