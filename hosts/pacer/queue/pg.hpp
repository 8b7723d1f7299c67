#pragma once
// A thin layer over libpq: one connection, statements with bound parameters, and errors sorted
// into the two kinds the queue acts on differently: the connection is gone (ConnectionLost:
// reconnect with backoff, nothing exits) and the server refused a statement (FailedError).
// Every message that could carry the connection string is masked (mask_conninfo, scrub_secret).
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pacer/error.hpp"

struct pg_conn;
struct pg_result;

namespace pacer::host::queue {

// The database cannot be reached or the connection broke (a restart, a network cut).
struct ConnectionLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bound parameter: text, or bytes sent as binary (bytea), or NULL.
struct Param {
  std::string_view value;
  bool binary = false;
  bool null = false;
  static Param text(std::string_view v) { return {v, false, false}; }
  static Param bytes(std::string_view v) { return {v, true, false}; }
};

class Result {
 public:
  explicit Result(pg_result* r) : r_(r, &clear) {}
  int rows() const;
  bool null(int row, int col) const;
  std::string_view text(int row, int col) const;  // text format; "" for NULL
  std::string str(int row, int col) const { return std::string(text(row, col)); }
  int64_t integer(int row, int col) const;
  double real(int row, int col) const;
  bool boolean(int row, int col) const { return text(row, col) == "t"; }
  pg_result* raw() const { return r_.get(); }

 private:
  static void clear(pg_result* r);
  std::unique_ptr<pg_result, void (*)(pg_result*)> r_;
};

// Checks the syntax of a connection string without connecting; InputError (exit 2) with a masked
// reason when libpq cannot parse it.
void check_conninfo(const std::string& conninfo, const std::string& what);

class Connection {
 public:
  // `application_name` shows in pg_stat_activity (which process holds which connection).
  Connection(std::string conninfo, std::string application_name);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects if not connected. ConnectionLost when the server cannot be reached or is starting
  // or stopping; InputError when it answered and refused (wrong password, no such database):
  // a setting to fix, not a moment to wait out.
  void ensure();
  bool connected() const { return conn_ != nullptr; }
  void drop();  // forget the connection (after ConnectionLost)

  // One statement; rows in text format, or in binary with binary_result (for bytea).
  Result exec(const std::string& sql, const std::vector<Param>& params = {}, bool binary_result = false);
  void exec_simple(const std::string& sql);  // several statements, no parameters

  // LISTEN support: waits until the server sends something or `extra_fd` (an eventfd) is readable,
  // at most `timeout`; then takes what arrived. Returns the notifications' (channel, payload).
  std::vector<std::pair<std::string, std::string>> wait(std::chrono::milliseconds timeout, int extra_fd = -1);

  const std::string& masked() const { return masked_; }
  // Anything libpq said, with the password (if the string has one) replaced.
  std::string scrub(std::string message) const;

 private:
  [[noreturn]] void lost(const std::string& what);
  Result check(Result r);
  std::string conninfo_, password_, masked_, application_name_;
  pg_conn* conn_ = nullptr;
};

// Waits between reconnection attempts: 100 ms doubling to 5 s, with jitter so that many workers
// cut off together do not all come back in the same instant.
class Backoff {
 public:
  std::chrono::milliseconds next();
  void reset() { ms_ = 0; }
  bool failing() const { return ms_ > 0; }

 private:
  int64_t ms_ = 0;
  std::minstd_rand jitter_{std::random_device{}()};
};

// A Postgres text[] literal for these strings ("{\"a\",\"b\"}").
std::string text_array(const std::vector<std::string>& items);

}  // namespace pacer::host::queue
