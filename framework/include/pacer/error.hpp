#pragma once
// Errors carry the exit code the host reports: bad input (2) versus a failed proof or check (1).
#include <stdexcept>
#include <string>

namespace pacer {

enum class ExitCode : int { ok = 0, failed = 1, bad_input = 2 };

// Every error message is one line that names the file/key and, where there is one, the fix.
// The destructors are defined in the framework library (error.cpp): that makes it the one home of
// these classes' vtables and type info. Defined inline, every plugin would carry its own copy, and
// an error thrown by a plugin would point into code that is gone once the plugin is unloaded
// (the host catches after the engine, and with it the plugin, is destroyed).
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ~Error() override;
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Bad files, bad config, bad plugin: the user can fix it.
struct InputError : Error {
  explicit InputError(const std::string& what) : Error(ExitCode::bad_input, what) {}
  ~InputError() override;
};

// A proof or check that ran and failed (backend error, verification failure).
struct FailedError : Error {
  explicit FailedError(const std::string& what) : Error(ExitCode::failed, what) {}
  ~FailedError() override;
};

// A backend's device stopped working (a sticky CUDA error, a lost GPU): not this proof's fault.
// The engine takes every lane of `device` (BackendInfo::lane_devices) out of service and runs the
// proof once more on a lane of another device; a second failure, or no device left, fails it.
struct DeviceFailedError : FailedError {
  DeviceFailedError(const std::string& what, unsigned device) : FailedError(what), device(device) {}
  ~DeviceFailedError() override;
  unsigned device;
};

}  // namespace pacer
