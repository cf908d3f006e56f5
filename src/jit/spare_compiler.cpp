// src/jit/spare_compiler.cpp: one waiting compiler process per process; see spare_compiler.h.
#include "jit/spare_compiler.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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
  // The FIFO, opened read-write: the compiler's open of it never waits for a writer, and it reads to the end
  // of the body once this descriptor is closed.
  int body_fd = -1;
  StartedProgram program;
  pid_t owner = 0;  // a forked child must not write into its parent's spare
};

std::mutex spare_mutex;          // guards `waiting`
std::optional<Spare> waiting;    // the spare, if one is waiting
std::atomic<int> compiles{0};

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

// Waits until the compiler has read the whole body from the FIFO. Only then may this end be closed: the
// compiler sees the end of its input when no writer is left, but a FIFO that nobody has open drops its data,
// and a compiler that had not opened it yet would wait forever. False when the compiler exited first, or after
// a minute without it reading.
bool drained(Spare& spare) {
  for (int waited_us = 0; waited_us < 60'000'000; waited_us += 50) {
    int unread = 0;
    if (::ioctl(spare.body_fd, FIONREAD, &unread) != 0) return false;
    if (unread == 0) return true;
    if (::waitpid(spare.program.pid, nullptr, WNOHANG) != 0) {
      spare.program.pid = -1;  // reaped: its number may be reused, so it must not be killed
      return false;
    }
    ::usleep(50);
  }
  return false;
}

bool matches(const Spare& spare, const std::vector<std::string>& argv, const std::string& prefix) {
  return spare.owner == ::getpid() && spare.argv == argv && spare.prefix == prefix;
}

}  // namespace

void start_spare(const std::vector<std::string>& argv, const std::string& prefix) {
  std::lock_guard<std::mutex> lock(spare_mutex);
  if (waiting && matches(*waiting, argv, prefix)) return;
  if (waiting && waiting->owner == ::getpid()) discard(*waiting);
  waiting.reset();
  Spare spare;
  spare.argv = argv;
  spare.prefix = prefix;
  spare.owner = ::getpid();
  try {
    spare.work_dir = make_work_dir(false);
    write_file_atomically(spare.work_dir + "/spare.cpp", prefix + "#include \"body\"\n");
  } catch (const std::exception&) {  // best effort: no spare, the next kernel compiles as usual
    if (!spare.work_dir.empty()) remove_tree(spare.work_dir);
    return;
  }
  std::string fifo = spare.work_dir + "/body";
  if (::mkfifo(fifo.c_str(), 0600) == 0) spare.body_fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  std::vector<std::string> command = argv;
  command.insert(command.end(), {"-x", "c++", spare.work_dir + "/spare.cpp", "-o", spare.work_dir + "/kernel.o"});
  std::string output;
  if (spare.body_fd >= 0) spare.program = start_program(command, -1, &output, true);
  if (spare.program.pid < 0) {
    if (spare.body_fd >= 0) ::close(spare.body_fd);
    remove_tree(spare.work_dir);
    return;
  }
  waiting = std::move(spare);
}

bool compile_on_spare(const std::vector<std::string>& argv, const std::string& prefix, const std::string& source,
                      std::string* work_dir, std::string* object) {
  size_t start = body_start(source, prefix);
  if (start == std::string::npos) return false;
  Spare spare;
  {
    std::lock_guard<std::mutex> lock(spare_mutex);
    if (!waiting || !matches(*waiting, argv, prefix)) return false;
    spare = std::move(*waiting);
    waiting.reset();
  }
  // The whole body must fit in the FIFO's buffer: the write then never blocks, even on a compiler that died
  // before reading it (this process holds the read side too, so nothing else would wake the write).
  std::string body = source.substr(start);
  int capacity = ::fcntl(spare.body_fd, F_SETPIPE_SZ, static_cast<int>(std::min<size_t>(body.size() + 1, 1 << 30)));
  bool handed = capacity > 0 && static_cast<size_t>(capacity) > body.size() && write_all(spare.body_fd, body);
  if (!handed) {
    discard(spare);
    return false;
  }
  if (!drained(spare)) {
    discard(spare);
    return false;
  }
  ::close(spare.body_fd);
  start_spare(argv, prefix);
  std::string output;
  int status = wait_program(spare.program, &output);
  struct stat info {};
  std::string built = spare.work_dir + "/kernel.o";
  if (status != 0 || ::stat(built.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    remove_tree(spare.work_dir);
    return false;
  }
  *work_dir = spare.work_dir;
  *object = built;
  ++compiles;
  return true;
}

int spare_compiles() { return compiles.load(); }

bool spare_waiting() {
  std::lock_guard<std::mutex> lock(spare_mutex);
  return waiting && waiting->owner == ::getpid();
}

}  // namespace qd::jit
