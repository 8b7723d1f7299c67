#pragma once
// What the daemon decides from a request before any proving code sees it: whether its header is
// acceptable (bearer token, body framing and size), what its target says (path and query,
// percent-decoded and UTF-8 checked) and which route it names, with its parameters checked.
// Pure functions of the request: the libFuzzer target tests/fuzz/fuzz_serve.cpp runs this same
// code over arbitrary bytes.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <boost/beast/http.hpp>

#include "pacer/printable.hpp"
#include "priority.hpp"

namespace pacer::host::serve {

namespace http = boost::beast::http;

// Beast 1.74 hands out boost::string_view; the daemon's code works with std::string_view.
inline std::string_view sv(boost::beast::string_view s) { return {s.data(), s.size()}; }

// The most a request's header (request line and fields) may take.
inline constexpr size_t kMaxHeaderBytes = 16 * 1024;

// A refused request: its status, a one-line reason, and the headers its answer carries (Allow,
// WWW-Authenticate).
struct Refusal {
  http::status status = http::status::bad_request;
  std::string reason;
  std::vector<std::pair<http::field, std::string>> headers;
};

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s);
// %XX and '+' decoded; nullopt for a broken escape.
std::optional<std::string> url_decode(std::string_view s);
// Text from a request in a message or a log line goes through printable() (pacer/printable.hpp).
using pacer::printable;

// The request target, split: "/v1/proofs/abc?wait=5" -> path "/v1/proofs/abc", query {wait: 5}.
struct Target {
  std::string path;
  std::map<std::string, std::string> query;
  std::string problem;  // non-empty: the target could not be read

  explicit Target(std::string_view target);
  // The first query parameter not in `known`, as an error, or "".
  std::string unknown_parameter(std::initializer_list<std::string_view> known) const;
};

// Refuses a request from its header alone, before its body is read: a missing or wrong bearer
// token where `token` is set (401; the scheme "Bearer" in any letter case), a transfer-coding
// other than chunked (501), Content-Length and Transfer-Encoding together (400), a Content-Length
// over max_body_bytes (413).
std::optional<Refusal> check_header(const http::request_header<>& header, std::string_view token,
                                    uint64_t max_body_bytes);

// A request the API serves.
struct Route {
  // rapidsnark_*: rapidsnark's prover-server routes (rapidsnark_front.hpp); its /start and /stop
  // answer the status, as they do nothing in rapidsnark either.
  enum class Kind { submit, get_proof, cancel, status, metrics, rapidsnark_input, rapidsnark_status, rapidsnark_cancel };
  Kind kind = Kind::status;
  std::string id;   // get_proof, cancel
  std::string key;  // submit, rapidsnark_input: one of the served key ids
  Priority priority = Priority::normal;
  double wait_s = 0;  // get_proof: ?wait=, before [server] max_wait_s caps it
};

// The route a complete request names, with its parameters checked, or why it is refused (400,
// 404, 405). HEAD is taken wherever GET is (the server then sends the header alone). `keys`: the
// served key ids; `body_bytes`: the size of the body read.
std::variant<Route, Refusal> route(http::verb method, std::string_view method_name, std::string_view target,
                                   size_t body_bytes, const std::vector<std::string>& keys);

}  // namespace pacer::host::serve
