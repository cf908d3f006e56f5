// src/jit/process.cpp: posix_spawn with a pipe for the output; no shell sees the command or paths.
#include "jit/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "quadrants/errors.h"

extern char** environ;

namespace qd::jit {

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

int run_program(const std::vector<std::string>& argv, std::string* output) {
  if (argv.empty()) return -1;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    output->append("could not start '" + argv[0] + "': " + std::string(std::strerror(spawned)));
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n > 0) output->append(buf, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace qd::jit
