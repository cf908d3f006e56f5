// src/jit/link_tools.cpp: see link_tools.h.
#include "jit/link_tools.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <future>
#include <map>
#include <mutex>
#include <new>

#include "jit/process.h"

namespace qd::jit {
namespace {

struct LinkTools {
  std::string ld, libm, libgcc;  // all empty when one was not found
};

using Discoveries = std::map<std::vector<std::string>, std::shared_future<LinkTools>>;
std::mutex tools_mutex;                   // guards `discoveries`
Discoveries* discoveries = new Discoveries;  // never freed: see the fork handler
// The maps a forked child inherited. Destroying one could wait forever on a future of a thread the child does
// not have, so they are kept, and kept reachable (so that leak checkers do not report them).
std::vector<Discoveries*>* inherited = new std::vector<Discoveries*>;

[[maybe_unused]] const int fork_handler = pthread_atfork(nullptr, nullptr, [] {
  new (&tools_mutex) std::mutex();
  inherited->push_back(discoveries);
  discoveries = new Discoveries;
});

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return !path.empty() && path[0] == '/' && ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The driver's answer to each question, asked all at once. It prints a bare name for a file it did not find.
LinkTools discover(std::vector<std::string> command) {
  const char* questions[] = {"-print-prog-name=ld", "-print-file-name=libm.so.6", "-print-libgcc-file-name"};
  StartedProgram programs[3];
  std::string answers[3];
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> argv = command;
    argv.push_back(questions[i]);
    programs[i] = start_program(argv, -1, &answers[i]);
  }
  bool answered = true;
  for (int i = 0; i < 3; ++i) {
    answered = wait_program(programs[i], &answers[i]) == 0 && answered;
    while (!answers[i].empty() && (answers[i].back() == '\n' || answers[i].back() == '\r')) answers[i].pop_back();
  }
  const std::string& ld = answers[0];
  bool ld_found = !ld.empty() && ld.find('\n') == std::string::npos &&
                  (ld.find('/') == std::string::npos || ::access(ld.c_str(), X_OK) == 0);
  if (!answered || !ld_found || !is_regular_file(answers[1]) || !is_regular_file(answers[2])) return {};
  return {answers[0], answers[1], answers[2]};
}

std::shared_future<LinkTools> discovery(const std::vector<std::string>& command) {
  std::lock_guard<std::mutex> lock(tools_mutex);
  auto found = discoveries->find(command);
  if (found != discoveries->end()) return found->second;
  return (*discoveries)[command] = std::async(std::launch::async, discover, command).share();
}

}  // namespace

void find_link_tools(const std::vector<std::string>& command) { discovery(command); }

std::vector<std::string> direct_link_argv(const std::vector<std::string>& command, const std::string& object,
                                          const std::string& library) {
  LinkTools tools = discovery(command).get();
  if (tools.ld.empty()) return {};
  // What GCC's driver passes ld for `-shared -nostdlib`, less the LTO plugin (kernels are not LTO objects).
  return {tools.ld, "--build-id", "--eh-frame-hdr", "--hash-style=gnu", "--as-needed", "-shared",
          "-o", library, object, tools.libm, tools.libgcc};
}

}  // namespace qd::jit
