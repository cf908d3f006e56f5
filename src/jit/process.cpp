// src/jit/process.cpp: posix_spawn with a pipe for the output; no shell sees the command or paths.
#include "jit/process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <set>

#include "quadrants/errors.h"

extern char** environ;

namespace qd::jit {
namespace {

thread_local bool tracks_programs = false;  // this thread runs background builds
std::mutex tracked_mutex;                   // guards the two below
// Process groups of tracked programs still running. Never destroyed: a background build may still be starting
// or reaping one while static destructors run.
std::set<int>& tracked = *new std::set<int>;
bool tracked_stopped = false;

[[maybe_unused]] const int tracked_fork_handler = pthread_atfork(nullptr, nullptr, [] {
  new (&tracked_mutex) std::mutex();
  tracked.clear();  // the parent's children, not ours
  tracked_stopped = false;
});

// Reads the program's output to its end (it has exited, or closed it), appending it to *output.
void read_output(const StartedProgram& program, std::string* output) {
  char buf[4096];
  for (ssize_t n; (n = ::read(program.output_fd, buf, sizeof buf)) != 0;) {
    if (n > 0) output->append(buf, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  }
  ::close(program.output_fd);
}

int reap(const StartedProgram& program) {
  int status = 0;
  while (::waitpid(program.pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// run_program on a tracking thread. The group leaves the list before it is reaped, so that a kill never reaches
// a process group whose number was given to another after the reap.
int run_tracked_program(const std::vector<std::string>& argv, std::string* output) {
  StartedProgram program;
  {
    std::lock_guard<std::mutex> lock(tracked_mutex);
    if (tracked_stopped) {
      output->append("not started: the process is exiting");
      return -1;
    }
    program = start_program(argv, -1, output, true);
    if (program.pid < 0) return -1;
    tracked.insert(program.pid);
  }
  read_output(program, output);
  {
    std::lock_guard<std::mutex> lock(tracked_mutex);
    tracked.erase(program.pid);
  }
  return reap(program);
}

}  // namespace

std::vector<std::string> split_command_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
    } else if (c == '\'') {
      size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) throw ValueError("The compiler command has an unterminated ' quote: " + command);
      word += command.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        bool escapes = command[j] == '\\' && j + 1 < command.size() &&
                       std::string("\"\\$`").find(command[j + 1]) != std::string::npos;
        word += command[escapes ? ++j : j];
      }
      if (j >= command.size()) throw ValueError("The compiler command has an unterminated \" quote: " + command);
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string quote_command_word(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string command_from_cxx(const std::string& value) {
  struct stat info {};
  if (::stat(value.c_str(), &info) != 0 || S_ISDIR(info.st_mode)) return value;
  return quote_command_word(value);
}

StartedProgram start_program(const std::vector<std::string>& argv, int stdin_fd, std::string* output,
                             bool own_group) {
  if (argv.empty()) return {};
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    output->append("could not create a pipe for '" + argv[0] + "': " + std::string(std::strerror(errno)));
    return {};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = -1;
  int spawned = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    output->append("could not start '" + argv[0] + "': " + std::string(std::strerror(spawned)));
    return {};
  }
  return {static_cast<int>(pid), fds[0], own_group};
}

int wait_program(StartedProgram program, std::string* output) {
  if (program.pid < 0) return -1;
  read_output(program, output);
  return reap(program);
}

void kill_program(StartedProgram program) {
  if (program.output_fd >= 0) ::close(program.output_fd);  // not read: a child outside the group could hold it open
  if (program.pid < 0) return;
  ::kill(program.own_group ? -program.pid : program.pid, SIGKILL);
  while (::waitpid(program.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

int run_program(const std::vector<std::string>& argv, std::string* output) {
  if (tracks_programs) return run_tracked_program(argv, output);
  return wait_program(start_program(argv, -1, output), output);
}

void track_programs_of_this_thread() { tracks_programs = true; }

void stop_tracked_programs() {
  std::lock_guard<std::mutex> lock(tracked_mutex);
  tracked_stopped = true;
  for (int group : tracked) ::kill(-group, SIGKILL);
}

}  // namespace qd::jit
