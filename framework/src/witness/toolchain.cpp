// Finding and running the compilers of witness generators (toolchain.hpp).
#include "toolchain.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build_cache.hpp"
#include "pacer/error.hpp"
#include "pacer/os_random.hpp"

extern char** environ;

namespace pacer::witness {

namespace fs = std::filesystem;

namespace {

constexpr size_t kOutputKept = 64 << 10;

// The wasm2c whose output wasm_glue.c is written for (its symbol names and wasm-rt.h).
constexpr const char* kWasm2cVersion = "1.0.32";

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// `--version` of a tool, for the cache key; throws InputError when it does not run.
std::string version_of(const std::vector<std::string>& command, const std::string& what) {
  std::vector<std::string> argv = command;
  argv.push_back("--version");
  const CommandResult r = run_command(argv, fs::current_path());
  if (r.exit_code != 0)
    throw InputError(fmt::format("{} ({}) does not run: {}", what, command.front(), trimmed(r.output)));
  return trimmed(r.output);
}

// The identity of the files behind a command's words (each word found on PATH, links resolved).
std::string file_identities(const std::vector<std::string>& command) {
  std::string out;
  for (const auto& word : command) {
    const fs::path program = find_program(word);
    std::error_code ec;
    const fs::path real = program.empty() ? fs::path() : fs::canonical(program, ec);
    struct stat st {};
    if (real.empty() || ::stat(real.c_str(), &st) != 0) {
      out += fmt::format("{} -\n", word);
      continue;
    }
    out += fmt::format("{} {} {} {} {} {}.{} {}.{}\n", word, real.string(), st.st_dev, st.st_ino, st.st_size,
                       st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  }
  return out;
}

// version_of(), remembered in memo_dir by file_identities(): a warm run starts no compiler.
std::string remembered_version(const std::vector<std::string>& command, const std::string& what,
                               const fs::path& memo_dir) {
  if (memo_dir.empty()) return version_of(command, what);
  KeyHasher hasher;
  hasher.add("tool version");
  hasher.add(file_identities(command));
  const fs::path memo = memo_dir / hasher.hex();
  std::error_code ec;
  if (fs::is_regular_file(memo, ec)) {
    std::ifstream in(memo, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (in && !text.str().empty()) return text.str();
  }
  std::string version = version_of(command, what);
  // Best effort: a read-only cache only costs the next run the same question. Folders made here
  // are private to the user, as the cache's others.
  for (const fs::path& dir : {memo_dir.parent_path(), memo_dir})
    if (!fs::exists(dir, ec) && fs::create_directories(dir, ec)) fs::permissions(dir, fs::perms::owner_all, ec);
  const fs::path tmp = memo.string() + ".tmp-" + os_random_hex(8);
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::binary);
    written = static_cast<bool>(out << version);
  }
  if (written) fs::rename(tmp, memo, ec);
  if (!written || ec) fs::remove(tmp, ec);
  return version;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const fs::path& cwd) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw FailedError(fmt::format("cannot start {}: pipe: {}", argv.front(), std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw FailedError(fmt::format("cannot start {}: {}", argv.front(), std::strerror(spawned)));
  }
  CommandResult result;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
    if (result.output.size() > 2 * kOutputKept) result.output.erase(0, result.output.size() - kOutputKept);
  }
  ::close(pipe_fds[0]);
  if (result.output.size() > kOutputKept) result.output.erase(0, result.output.size() - kOutputKept);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

fs::path find_program(const std::string& name) {
  std::error_code ec;
  if (name.find('/') != std::string::npos) return fs::exists(name, ec) ? fs::path(name) : fs::path();
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

std::vector<std::string> compiler_command(const char* environment_variable, const std::string& fallback) {
  std::vector<std::string> words;
  if (const char* value = std::getenv(environment_variable)) {
    std::istringstream in(value);
    for (std::string word; in >> word;) words.push_back(word);
  }
  if (words.empty()) words.push_back(fallback);
  return words;
}

WasmToolchain find_wasm_toolchain(const fs::path& memo_dir) {
  WasmToolchain t;
  t.wasm2c = find_program("wasm2c");
  if (t.wasm2c.empty())
    throw InputError("wasm2c was not found on PATH: install it (Debian: apt-get install wabt) to use a .wasm witness "
                     "generator, or prebuild the generator with pacer witness --compile-only on a machine that has it");
  const std::string wasm2c_version = remembered_version({t.wasm2c.string()}, "wasm2c", memo_dir);
  if (wasm2c_version != kWasm2cVersion)
    throw InputError(fmt::format("wasm2c {} ({}) is not supported: Pacer's runtime for wasm2c output is written for "
                                 "wabt {} (Debian 12's); install that version, or give circom's C++ generator "
                                 "(--circuit-cpp)",
                                 wasm2c_version, t.wasm2c.string(), kWasm2cVersion));
  // wasm-rt.h: beside the tool's prefix, or where Debian puts it.
  const fs::path prefix = t.wasm2c.parent_path().parent_path();
  for (const fs::path& dir : {prefix / "include", prefix / "share/wabt/wasm2c", fs::path("/usr/include"),
                              fs::path("/usr/local/include"), fs::path("/usr/src/wasm2c")}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "wasm-rt.h", ec)) {
      t.wasm_rt_include = dir;
      break;
    }
  }
  if (t.wasm_rt_include.empty())
    throw InputError(fmt::format("wasm-rt.h (wabt's header for wasm2c output) was not found beside {}: install wabt "
                                 "completely (Debian: apt-get install wabt)",
                                 t.wasm2c.string()));
  t.cc = compiler_command("CC", "cc");
  if (find_program(t.cc.front()).empty())
    throw InputError(fmt::format("the C compiler {} was not found on PATH: install one (Debian: apt-get install gcc) "
                                 "or set CC, or prebuild the generator with pacer witness --compile-only",
                                 t.cc.front()));
  std::ifstream header(t.wasm_rt_include / "wasm-rt.h", std::ios::binary);
  std::stringstream header_text;
  header_text << header.rdbuf();
  t.identity = fmt::format("wasm2c {} {}\nwasm-rt.h {}\n{}\ncc {}\n{}\n", t.wasm2c.string(), wasm2c_version,
                           t.wasm_rt_include.string(), header_text.str(), fmt::join(t.cc, " "),
                           remembered_version(t.cc, "the C compiler", memo_dir));
  return t;
}

CppToolchain find_cpp_toolchain(const fs::path& memo_dir) {
  CppToolchain t;
  t.cxx = compiler_command("CXX", "c++");
  if (find_program(t.cxx.front()).empty())
    throw InputError(fmt::format("the C++ compiler {} was not found on PATH: install one (Debian: apt-get install g++) "
                                 "or set CXX, or prebuild the generator with pacer witness --compile-only",
                                 t.cxx.front()));
  t.nasm = find_program("nasm");
  if (t.nasm.empty())
    throw InputError("nasm was not found on PATH: circom's C++ generator has its field arithmetic in fr.asm (Debian: "
                     "apt-get install nasm), or prebuild the generator with pacer witness --compile-only");
  t.identity = fmt::format("c++ {}\n{}\nnasm {}\n{}\n", fmt::join(t.cxx, " "),
                           remembered_version(t.cxx, "the C++ compiler", memo_dir), t.nasm.string(),
                           remembered_version({t.nasm.string()}, "nasm", memo_dir));
  return t;
}

}  // namespace pacer::witness
