#pragma once
// Errors carry the exit code the host reports: bad input (2) versus a failed proof or check (1).
#include <stdexcept>
#include <string>

namespace pacer {

enum class ExitCode : int { ok = 0, failed = 1, bad_input = 2 };

// Every error message is one line that names the file/key and, where there is one, the fix.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Bad files, bad config, bad plugin: the user can fix it.
struct InputError : Error {
  explicit InputError(const std::string& what) : Error(ExitCode::bad_input, what) {}
};

// A proof or check that ran and failed (backend error, verification failure).
struct FailedError : Error {
  explicit FailedError(const std::string& what) : Error(ExitCode::failed, what) {}
};

}  // namespace pacer
