#pragma once
// The outside programs a witness generator is compiled with (wasm2c, the system C and C++
// compilers, nasm), found on PATH, and a way to run them with their output captured.
#include <filesystem>
#include <string>
#include <vector>

namespace pacer::witness {

struct CommandResult {
  int exit_code = -1;   // -1: killed by a signal (then `signal` says which)
  int signal = 0;
  std::string output;   // stdout and stderr together, the last 64 KiB
};

// Runs argv[0] (looked up on PATH) with stdin from /dev/null, in `cwd`; waits for it. Throws
// FailedError when it cannot be started.
CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd);

// The path of `name` on PATH (or `name` itself when it holds a slash and exists); empty if none.
std::filesystem::path find_program(const std::string& name);

// A compiler command: $CC / $CXX split on blanks (e.g. "ccache gcc"), else the default name.
std::vector<std::string> compiler_command(const char* environment_variable, const std::string& fallback);

// The tools of one kind of build, checked to be there (InputError naming what is missing and the
// package that has it), with an identity string for the cache key: the resolved paths and what
// each says for --version. The answers are remembered in `memo_dir` by the files' identities
// (device, inode, size, modification and change times: replacing or editing a tool changes its
// change time), so that a run with a warm cache starts no tool; empty: always asked.
struct WasmToolchain {
  std::vector<std::string> cc;
  std::filesystem::path wasm2c;
  std::filesystem::path wasm_rt_include;  // the folder of wasm-rt.h
  std::string identity;
};
WasmToolchain find_wasm_toolchain(const std::filesystem::path& memo_dir);

struct CppToolchain {
  std::vector<std::string> cxx;
  std::filesystem::path nasm;
  std::string identity;
};
CppToolchain find_cpp_toolchain(const std::filesystem::path& memo_dir);

}  // namespace pacer::witness
