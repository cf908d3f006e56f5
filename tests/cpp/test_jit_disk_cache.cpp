// tests/cpp/test_jit_disk_cache.cpp: SHA-256 vectors, compiler-command splitting, verified cache entries.
#include <gtest/gtest.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "jit/disk_cache.h"
#include "jit/process.h"
#include "jit/sha256.h"
#include "quadrants/errors.h"

namespace qd::jit {
namespace {

TEST(Sha256, MatchesTheStandardsTestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// The SHA-instruction path (taken where the CPU has it) and the portable one agree on every length
// around the block and padding boundaries; the portable one also meets the standard's vectors.
TEST(Sha256, InstructionAndPortablePathsAgree) {
  EXPECT_EQ(sha256_hex_portable("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  uint32_t seed = 1;
  for (size_t length = 0; length < 300; ++length) {
    std::string bytes(length, '\0');
    for (char& c : bytes) c = static_cast<char>((seed = seed * 1103515245u + 12345u) >> 16);
    ASSERT_EQ(sha256_hex(bytes), sha256_hex_portable(bytes)) << "length " << length;
  }
}

TEST(CompilerCommand, SplitsLikeAShellWithoutExpanding) {
  using Words = std::vector<std::string>;
  EXPECT_EQ(split_command_words("c++"), Words{"c++"});
  EXPECT_EQ(split_command_words("  ccache   g++-12 -O2 "), (Words{"ccache", "g++-12", "-O2"}));
  EXPECT_EQ(split_command_words("'/opt/my compiler/c++' -DX=\"a b\""), (Words{"/opt/my compiler/c++", "-DX=a b"}));
  EXPECT_EQ(split_command_words("c++ $(rm -rf /) ;ls"), (Words{"c++", "$(rm", "-rf", "/)", ";ls"}));
  EXPECT_EQ(split_command_words("a\\ b \"q\\\"\""), (Words{"a b", "q\""}));
  EXPECT_THROW(split_command_words("c++ 'open"), ValueError);
}

TEST(CompilerCommand, CxxNamingAFileIsOneWordEvenWithBlanksOrQuotes) {
  using Words = std::vector<std::string>;
  char pattern[] = "/tmp/qd-cxx-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = std::string(pattern) + "/with space 'and quote'";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::string compiler = dir + "/g++";
  std::ofstream(compiler) << "#!/bin/sh\n";
  EXPECT_EQ(split_command_words(command_from_cxx(compiler)), Words{compiler});
  // Not a file: a command line, split as a shell would (a launcher and options, or a quoted path).
  EXPECT_EQ(split_command_words(command_from_cxx("ccache g++ -O2")), (Words{"ccache", "g++", "-O2"}));
  EXPECT_EQ(split_command_words(command_from_cxx("\"" + dir + "/g++\" -DX")), (Words{dir + "/g++", "-DX"}));
  EXPECT_EQ(split_command_words(command_from_cxx(dir)), (Words{std::string(pattern) + "/with", "space", "and quote"}));
  ::unlink(compiler.c_str());
  ::rmdir(dir.c_str());
  ::rmdir(pattern);
}

TEST(RunProgram, ReturnsStatusAndOutputWithoutAShell) {
  std::string output;
  EXPECT_EQ(run_program({"sh", "-c", "echo out; echo err >&2; exit 3"}, &output), 3);
  EXPECT_NE(output.find("out"), std::string::npos);
  EXPECT_NE(output.find("err"), std::string::npos);
  output.clear();
  EXPECT_EQ(run_program({"echo", "$HOME;", "`id`"}, &output), 0);
  EXPECT_EQ(output, "$HOME; `id`\n");
  output.clear();
  EXPECT_EQ(run_program({"/nonexistent/compiler"}, &output), -1);
  EXPECT_NE(output.find("could not start '/nonexistent/compiler'"), std::string::npos) << output;
}

class DiskCacheEntry : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/qd-cache-entry-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/kernel-key.so";
  }
  void TearDown() override { ::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string dir_, path_;
};

TEST_F(DiskCacheEntry, ReadsBackWhatWasStoredForTheSameKey) {
  store_entry(path_, "key1", "library bytes");
  EXPECT_EQ(read_verified(path_, "key1"), std::optional<std::string>("library bytes"));
  EXPECT_EQ(read_verified(path_, "key2"), std::nullopt);  // another key's entry is a miss
}

TEST_F(DiskCacheEntry, ChangedTruncatedOrUnvouchedBytesAreAMiss) {
  store_entry(path_, "key1", "library bytes");
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << "library bytez";
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << "library";
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
  write_file_atomically(path_, "library bytes");
  ::unlink((path_ + ".manifest").c_str());
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
}

TEST_F(DiskCacheEntry, FilesOthersCanWriteAreNotTrusted) {
  store_entry(path_, "key1", "library bytes");
  ::chmod(path_.c_str(), 0666);
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
  ::chmod(path_.c_str(), 0600);
  ::chmod((path_ + ".manifest").c_str(), 0620);
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
}

// The temporaries and entry files left in `dir` (anything but the directory's own entries).
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* listing = ::opendir(dir.c_str())) {
    while (const dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name != "." && name != ".." && name != "usage.log") names.push_back(name);
    }
    ::closedir(listing);
  }
  return names;
}

TEST_F(DiskCacheEntry, AWriteThatRunsOutOfSpaceLeavesNothingAndDoesNotThrow) {
  // A file size limit in a child process: the library's write fails part way (EFBIG, as ENOSPC would).
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    bool stored = store_entry(path_, "key1", std::string(3 * 4096, 'x'));
    bool left_nothing = files_in(dir_).empty();
    ::_exit(!stored && left_nothing && !read_verified(path_, "key1") ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_TRUE(files_in(dir_).empty());
  EXPECT_TRUE(store_entry(path_, "key1", std::string(3 * 4096, 'x')));  // with room, the same store works
  EXPECT_EQ(read_verified(path_, "key1"), std::optional<std::string>(std::string(3 * 4096, 'x')));
}

TEST_F(DiskCacheEntry, ALibraryWhoseManifestCannotBeWrittenIsRemoved) {
  ASSERT_EQ(::mkdir((path_ + ".manifest").c_str(), 0700), 0);  // the manifest's rename into place fails
  EXPECT_FALSE(store_entry(path_, "key1", "library bytes"));
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"kernel-key.so.manifest"});  // only the obstacle
  EXPECT_EQ(read_verified(path_, "key1"), std::nullopt);
}

TEST_F(DiskCacheEntry, AStoreIntoARemovedDirectoryFailsQuietly) {
  ASSERT_EQ(::rmdir(dir_.c_str()), 0);
  EXPECT_FALSE(store_entry(path_, "key1", "library bytes"));
  std::string error;
  EXPECT_FALSE(try_write_file_atomically(path_, "x", &error));
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
  EXPECT_THROW(write_file_atomically(path_, "x"), CompileError);
  ::mkdir(dir_.c_str(), 0700);  // for TearDown
}

}  // namespace
}  // namespace qd::jit
