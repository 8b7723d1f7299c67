#pragma once
// The top of every thread Pacer starts: an exception that escapes a thread's function ends the
// process (std::terminate), whatever the request or proof that caused it. So each thread's body
// runs through one of these, which log what was thrown and go on.
#include <functional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>

namespace spdlog { class logger; }

namespace pacer {

// "<what>: <exception's message>" for the exception being handled (inside a catch block).
std::string describe_current_exception();

// io.run() until it returns: a handler that throws is logged ("<role> ... threw ... and goes
// on") and run() is entered again, so the thread serves the next handler. `log` may be null
// (then stderr).
void run_io_until_stopped(boost::asio::io_context& io, spdlog::logger* log, std::string_view role) noexcept;

// Calls fn; whatever it throws is logged and swallowed. For a thread's body, a timer's callback,
// a pool task: places where nobody is left to catch.
void call_and_log_exceptions(const std::function<void()>& fn, spdlog::logger* log, std::string_view role) noexcept;

}  // namespace pacer
