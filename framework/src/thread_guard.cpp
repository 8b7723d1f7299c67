#include "pacer/thread_guard.hpp"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace pacer {

namespace {

// Logs the exception being handled; nothing escapes (this runs where nobody is left to catch).
void report_current(spdlog::logger* log, std::string_view role) noexcept {
  try {
    const std::string line = fmt::format("{} threw, and goes on: {}", role, describe_current_exception());
    if (log) log->error("{}", line);
    else std::fprintf(stderr, "pacer: error: %s\n", line.c_str());
  } catch (...) {
    std::fputs("pacer: error: a thread's work threw, and the thread goes on (the message could not be formatted)\n",
               stderr);
  }
}

}  // namespace

std::string describe_current_exception() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void run_io_until_stopped(boost::asio::io_context& io, spdlog::logger* log, std::string_view role) noexcept {
  for (;;) {
    try {
      io.run();
      return;
    } catch (...) {
      report_current(log, role);
    }
  }
}

void call_and_log_exceptions(const std::function<void()>& fn, spdlog::logger* log, std::string_view role) noexcept {
  try {
    fn();
  } catch (...) {
    report_current(log, role);
  }
}

}  // namespace pacer
