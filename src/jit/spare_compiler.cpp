// src/jit/spare_compiler.cpp: one waiting compiler process per process; see spare_compiler.h.
#include "jit/spare_compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cerrno>
#include <exception>
#include <mutex>
#include <new>
#include <optional>

#include "jit/disk_cache.h"
#include "jit/process.h"

namespace qd::jit {
namespace {

struct Spare {
  std::vector<std::string> argv;
  std::string prefix;
  std::string work_dir;
  // The write end of the spare's standard input, a pipe, which its main file includes as /dev/stdin: the
  // compiler reads the body when it reaches that line, to the end of the pipe once this end is closed. Opening
  // an anonymous pipe by path never waits for a writer, and the body waits in the pipe until it is read, so
  // the compiler may reach the line before or after the body is written; if this process dies, the compiler
  // sees the end of its input and exits.
  int body_fd = -1;
  StartedProgram program;
  pid_t owner = 0;  // a forked child must not write into its parent's spare
};

std::mutex spare_mutex;          // guards `waiting`
std::optional<Spare> waiting;    // the spare, if one is waiting
std::atomic<int> compiles{0};
bool disabled = false;           // guarded by spare_mutex; see disable_spares

void discard(Spare& spare) {
  kill_program(spare.program);
  ::close(spare.body_fd);
  remove_tree(spare.work_dir);
}

// A forked child inherits the parent's spare: it closes its copies of the descriptors (an open copy of the
// FIFO would keep the compiler from ever seeing the end of the body) and forgets the spare without stopping it.
[[maybe_unused]] const int fork_handler = pthread_atfork(nullptr, nullptr, [] {
  new (&spare_mutex) std::mutex();
  if (waiting) {
    ::close(waiting->body_fd);
    ::close(waiting->program.output_fd);
    waiting.reset();
  }
});

// Stops a spare still waiting when the process exits; else it would read the end of its body and compile
// the header alone.
struct StopAtExit {
  ~StopAtExit() {
    std::lock_guard<std::mutex> lock(spare_mutex);
    if (waiting && waiting->owner == ::getpid()) discard(*waiting);
    waiting.reset();
  }
} stop_at_exit;

// Where the body starts: after leading `//` lines (none continued by a backslash) and `prefix`; npos when
// `source` has another shape.
size_t body_start(const std::string& source, const std::string& prefix) {
  for (size_t pos = 0; pos < source.size();) {
    if (source.compare(pos, prefix.size(), prefix) == 0) return pos + prefix.size();
    size_t end = source.find('\n', pos);
    if (source.compare(pos, 2, "//") != 0 || end == std::string::npos || source[end - 1] == '\\') break;
    pos = end + 1;
  }
  return std::string::npos;
}

// Writes the body into the spare's pipe. The whole body must fit in the pipe's buffer, so the write never
// waits on a compiler that is slow to read it; a compiler that has exited makes the write fail with EPIPE,
// whose SIGPIPE is kept from this process (a host program may not ignore it, as Python does).
bool hand_over(int fd, const std::string& body) {
  int capacity = ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(std::min<size_t>(body.size() + 1, 1 << 30)));
  if (capacity < 0 || static_cast<size_t>(capacity) <= body.size()) return false;
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  bool written = write_all(fd, body);
  if (!written && errno == EPIPE) {
    timespec no_wait{};
    while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return written;
}

// QD_SPARE_COMPILER=0: no spares (an idle one holds about 28 MB, which many processes may not want to spend).
bool turned_off() {
  const char* setting = std::getenv("QD_SPARE_COMPILER");
  return setting && std::string(setting) == "0";
}

bool matches(const Spare& spare, const std::vector<std::string>& argv, const std::string& prefix) {
  return spare.owner == ::getpid() && spare.argv == argv && spare.prefix == prefix;
}

}  // namespace

void start_spare(const std::vector<std::string>& argv, const std::string& prefix) {
  std::lock_guard<std::mutex> lock(spare_mutex);
  if (!disabled && !turned_off() && waiting && matches(*waiting, argv, prefix)) return;
  if (waiting && waiting->owner == ::getpid()) discard(*waiting);
  waiting.reset();
  if (disabled || turned_off()) return;
  Spare spare;
  spare.argv = argv;
  spare.prefix = prefix;
  spare.owner = ::getpid();
  try {
    // In $TMPDIR, not the cache: clearing the cache must not pull the files from under a waiting spare.
    spare.work_dir = make_work_dir(false);
    write_file_atomically(spare.work_dir + "/spare.cpp", prefix + "#include \"/dev/stdin\"\n");
  } catch (const std::exception&) {  // best effort: no spare, the next kernel compiles as usual
    if (!spare.work_dir.empty()) remove_tree(spare.work_dir);
    return;
  }
  int input[2];
  if (::pipe2(input, O_CLOEXEC) != 0) {
    remove_tree(spare.work_dir);
    return;
  }
  spare.body_fd = input[1];
  std::vector<std::string> command = argv;
  command.insert(command.end(), {"-x", "c++", spare.work_dir + "/spare.cpp", "-o", spare.work_dir + "/kernel.o"});
  std::string output;
  spare.program = start_program(command, input[0], &output, true);
  ::close(input[0]);
  if (spare.program.pid < 0) {
    ::close(spare.body_fd);
    remove_tree(spare.work_dir);
    return;
  }
  waiting = std::move(spare);
}

SpareResult compile_on_spare(const std::vector<std::string>& argv, const std::string& prefix,
                             const std::string& source, std::string* work_dir, std::string* object) {
  size_t start = body_start(source, prefix);
  if (start == std::string::npos) return SpareResult::kNoSpare;
  Spare spare;
  {
    std::lock_guard<std::mutex> lock(spare_mutex);
    if (!waiting || !matches(*waiting, argv, prefix)) return SpareResult::kNoSpare;
    spare = std::move(*waiting);
    waiting.reset();
  }
  if (!hand_over(spare.body_fd, source.substr(start))) {
    discard(spare);
    return SpareResult::kFailed;
  }
  ::close(spare.body_fd);
  start_spare(argv, prefix);
  std::string output;
  int status = wait_program(spare.program, &output);
  struct stat info {};
  std::string built = spare.work_dir + "/kernel.o";
  if (status != 0 || ::stat(built.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    remove_tree(spare.work_dir);
    return SpareResult::kFailed;
  }
  *work_dir = spare.work_dir;
  *object = built;
  ++compiles;
  return SpareResult::kBuilt;
}

void disable_spares() {
  std::lock_guard<std::mutex> lock(spare_mutex);
  disabled = true;
  if (waiting && waiting->owner == ::getpid()) discard(*waiting);
  waiting.reset();
}

int spare_compiles() { return compiles.load(); }

bool spare_waiting() {
  std::lock_guard<std::mutex> lock(spare_mutex);
  return waiting && waiting->owner == ::getpid();
}

}  // namespace qd::jit
