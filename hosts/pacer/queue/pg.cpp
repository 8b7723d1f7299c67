#include "pg.hpp"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include "libpq.hpp"
#include "pacer/config.hpp"

namespace pacer::host::queue {

namespace {

std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.substr(0, 500);
}

// A server that refuses for a moment (starting up, shutting down, too many clients) is waited
// out like an unreachable one; any other refusal is a setting to fix.
bool transient_refusal(const std::string& message) {
  for (const char* m : {"starting up", "shutting down", "in recovery", "too many clients", "not yet accepting",
                        "terminating connection", "could not connect", "Connection refused", "No such file",
                        "timeout expired", "server closed the connection", "could not translate host name",
                        "Network is unreachable", "No route to host"})
    if (message.find(m) != std::string::npos) return true;
  return message.find("FATAL") == std::string::npos;  // no answer from a server at all
}

}  // namespace

void Result::clear(pg_result* r) { libpq().PQclear(r); }
int Result::rows() const { return libpq().PQntuples(r_.get()); }
bool Result::null(int row, int col) const { return libpq().PQgetisnull(r_.get(), row, col) != 0; }
std::string_view Result::text(int row, int col) const {
  return {libpq().PQgetvalue(r_.get(), row, col), static_cast<size_t>(libpq().PQgetlength(r_.get(), row, col))};
}
int64_t Result::integer(int row, int col) const { return null(row, col) ? 0 : std::strtoll(libpq().PQgetvalue(r_.get(), row, col), nullptr, 10); }
double Result::real(int row, int col) const { return null(row, col) ? 0 : std::strtod(libpq().PQgetvalue(r_.get(), row, col), nullptr); }

void check_conninfo(const std::string& conninfo, const std::string& what) {
  char* err = nullptr;
  PQconninfoOption* options = libpq().PQconninfoParse(conninfo.c_str(), &err);
  if (options) {
    libpq().PQconninfoFree(options);
    return;
  }
  std::string reason = err ? one_line(err) : "out of memory";
  if (err) libpq().PQfreemem(err);
  throw InputError(fmt::format("{} is not a valid PostgreSQL connection string ({}): {}", what,
                               scrub_secret(reason, conninfo_password(conninfo)), mask_conninfo(conninfo)));
}

Connection::Connection(std::string conninfo, std::string application_name)
    : conninfo_(std::move(conninfo)),
      password_(conninfo_password(conninfo_)),
      masked_(mask_conninfo(conninfo_)),
      application_name_(std::move(application_name)) {}

Connection::~Connection() { drop(); }

void Connection::drop() {
  if (conn_) libpq().PQfinish(conn_);
  conn_ = nullptr;
}

std::string Connection::scrub(std::string message) const { return scrub_secret(one_line(std::move(message)), password_); }

void Connection::ensure() {
  if (conn_) return;
  // Defaults first: what the connection string itself says overrides them (expand_dbname).
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"5", application_name_.c_str(), conninfo_.c_str(), nullptr};
  PGconn* c = libpq().PQconnectdbParams(keywords, values, 1);
  if (!c) throw ConnectionLost("libpq could not allocate a connection");
  if (libpq().PQstatus(c) != CONNECTION_OK) {
    const std::string message = scrub(libpq().PQerrorMessage(c));
    libpq().PQfinish(c);
    if (transient_refusal(message)) throw ConnectionLost(message);
    throw InputError(fmt::format("the database refused the connection ({}): {}", masked_, message));
  }
  conn_ = c;
  // Short statements only, never a transaction left open: a stuck one must not hold locks long.
  exec_simple("SET idle_in_transaction_session_timeout = '60s'");
}

void Connection::lost(const std::string& what) {
  drop();
  throw ConnectionLost(what);
}

Result Connection::exec(const std::string& sql, const std::vector<Param>& params, bool binary_result) {
  ensure();
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const Param& p : params) {
    values.push_back(p.null ? nullptr : p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  // Text parameters must be NUL-terminated: copy those that are views into larger buffers.
  std::vector<std::string> owned;
  owned.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].null && !params[i].binary) values[i] = owned.emplace_back(params[i].value).c_str();
  Result r(libpq().PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(), lengths.data(),
                        formats.data(), binary_result ? 1 : 0));
  if (libpq().PQstatus(conn_) == CONNECTION_BAD) lost(scrub(libpq().PQerrorMessage(conn_)));
  return check(std::move(r));
}

void Connection::exec_simple(const std::string& sql) {
  ensure();
  Result r(libpq().PQexec(conn_, sql.c_str()));
  if (libpq().PQstatus(conn_) == CONNECTION_BAD) lost(scrub(libpq().PQerrorMessage(conn_)));
  check(std::move(r));
}

Result Connection::check(Result r) {
  pg_result* raw = r.raw();
  const ExecStatusType status = raw ? libpq().PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
  const char* state = raw ? libpq().PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  const std::string message = scrub(raw ? libpq().PQresultErrorMessage(raw) : libpq().PQerrorMessage(conn_));
  // Class 08: connection exception; 57P0x: the server is shutting down or restarting.
  if (!state || std::strncmp(state, "08", 2) == 0 || std::strncmp(state, "57P", 3) == 0) lost(message);
  throw FailedError(fmt::format("the database refused a statement ({}): {}", state, message));
}

std::vector<std::pair<std::string, std::string>> Connection::wait(std::chrono::milliseconds timeout, int extra_fd) {
  ensure();
  std::vector<std::pair<std::string, std::string>> out;
  const auto take = [&] {
    while (PGnotify* n = libpq().PQnotifies(conn_)) {
      out.emplace_back(n->relname, n->extra);
      libpq().PQfreemem(n);
    }
  };
  take();  // what arrived with the answers to earlier statements: no reason to wait for more
  if (!out.empty()) return out;
  pollfd fds[2] = {{libpq().PQsocket(conn_), POLLIN, 0}, {extra_fd, POLLIN, 0}};
  ::poll(fds, extra_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  if (fds[0].revents != 0 && libpq().PQconsumeInput(conn_) == 0) lost(scrub(libpq().PQerrorMessage(conn_)));
  take();
  return out;
}

std::chrono::milliseconds Backoff::next() {
  ms_ = ms_ == 0 ? 100 : std::min<int64_t>(ms_ * 2, 5000);
  const int64_t jittered = ms_ / 2 + static_cast<int64_t>(jitter_() % static_cast<uint64_t>(ms_ / 2 + 1));
  return std::chrono::milliseconds(jittered);
}

std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

}  // namespace pacer::host::queue
