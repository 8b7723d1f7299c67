#include "request.hpp"

#include <algorithm>
#include <charconv>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <fmt/format.h>

namespace pacer::host::serve {

namespace beast = boost::beast;

namespace {

constexpr std::string_view kProofs = "/v1/proofs";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Constant time in the token's length, so a timing probe learns nothing of its prefix.
bool same_secret(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

Refusal unauthorized(std::string reason, std::string challenge) {
  return {http::status::unauthorized, std::move(reason), {{http::field::www_authenticate, std::move(challenge)}}};
}

Refusal wrong_method(std::string_view method_name, const std::string& path, const char* allowed) {
  return {http::status::method_not_allowed,
          fmt::format("{} {}: method not allowed (allowed: {})", printable(method_name, 32), printable(path), allowed),
          {{http::field::allow, allowed}}};
}

Refusal bad_request(std::string reason) { return {http::status::bad_request, std::move(reason), {}}; }

}  // namespace

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else return false;
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

std::optional<std::string> url_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

Target::Target(std::string_view target) {
  const auto q = target.find('?');
  path = std::string(target.substr(0, q));
  if (!valid_utf8(path)) {
    problem = "the request path is not valid UTF-8";
    return;
  }
  if (q == std::string_view::npos) return;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const auto key = url_decode(pair.substr(0, eq));
    const auto value = url_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!key || !value) {
      problem = fmt::format("bad percent-escape in the query \"{}\"", printable(pair));
      return;
    }
    if (!valid_utf8(*key) || !valid_utf8(*value)) {
      problem = "the query is not valid UTF-8 (after percent-decoding)";
      return;
    }
    query[*key] = *value;
  }
}

std::string Target::unknown_parameter(std::initializer_list<std::string_view> known) const {
  for (const auto& [k, v] : query)
    if (std::find(known.begin(), known.end(), k) == known.end())
      return fmt::format("unknown query parameter '{}' (known here: {})", printable(k),
                         known.size() ? fmt::format("{}", fmt::join(known, ", ")) : std::string("none"));
  return "";
}

std::optional<Refusal> check_header(const http::request_header<>& header, std::string_view token,
                                    uint64_t max_body_bytes) {
  if (!token.empty()) {
    // RFC 9110 11.6.2: credentials = auth-scheme [ 1*SP token68 ], the scheme case-insensitive.
    const std::string_view auth = sv(header[http::field::authorization]);
    if (auth.empty())
      return unauthorized("missing Authorization: Bearer <token> ([server] token is set)", "Bearer");
    const auto space = auth.find(' ');
    const std::string_view scheme = auth.substr(0, space);
    std::string_view credentials = space == std::string_view::npos ? std::string_view{} : auth.substr(space);
    while (!credentials.empty() && credentials.front() == ' ') credentials.remove_prefix(1);
    if (!beast::iequals(beast::string_view(scheme.data(), scheme.size()), "Bearer"))
      return unauthorized("the Authorization scheme must be Bearer", "Bearer");
    if (!same_secret(credentials, token)) return unauthorized("wrong bearer token", "Bearer error=\"invalid_token\"");
  }
  const std::string_view length = sv(header[http::field::content_length]);
  if (header.count(http::field::transfer_encoding)) {
    // Only chunked is read; any other coding (gzip, a made-up one) would be taken as the body.
    if (!length.empty())
      return bad_request("Content-Length and Transfer-Encoding together: send one of them");
    int chunked = 0;
    for (const auto& coding : http::token_list(header[http::field::transfer_encoding])) {
      if (!beast::iequals(coding, "chunked"))
        return Refusal{http::status::not_implemented,
                       fmt::format("transfer-coding '{}' is not supported (send the body as it is, with "
                                   "Content-Length or Transfer-Encoding: chunked)",
                                   printable(sv(coding), 40)),
                       {}};
      if (++chunked > 1) return bad_request("Transfer-Encoding: chunked more than once");
    }
  }
  uint64_t bytes = 0;
  if (!length.empty() && std::from_chars(length.data(), length.data() + length.size(), bytes).ec == std::errc{} &&
      bytes > max_body_bytes)
    return Refusal{http::status::payload_too_large,
                   fmt::format("the body of {} bytes is larger than the limit of {} bytes ([server] max_body_bytes)",
                               bytes, max_body_bytes),
                   {}};
  return std::nullopt;
}

std::variant<Route, Refusal> route(http::verb method, std::string_view method_name, std::string_view target_text,
                                   size_t body_bytes, const std::vector<std::string>& keys) {
  const Target target(target_text);
  if (!target.problem.empty()) return bad_request(target.problem);
  const bool get = method == http::verb::get || method == http::verb::head;
  Route r;

  if (target.path == kProofs) {
    if (method != http::verb::post) return wrong_method(method_name, target.path, "POST");
    if (auto bad = target.unknown_parameter({"key", "priority"}); !bad.empty()) return bad_request(bad);
    const auto key = target.query.find("key");
    const std::string ids = keys.empty() ? std::string("none") : fmt::format("{}", fmt::join(keys, ", "));
    if (key == target.query.end()) return bad_request(fmt::format("POST /v1/proofs needs ?key=ID (keys: {})", ids));
    if (std::find(keys.begin(), keys.end(), key->second) == keys.end())
      return Refusal{
          http::status::not_found, fmt::format("unknown key '{}' (keys: {})", printable(key->second), ids), {}};
    if (const auto p = target.query.find("priority"); p != target.query.end()) {
      const auto parsed = parse_priority(p->second);
      if (!parsed)
        return bad_request(
            fmt::format("priority must be critical, high, normal or low, got '{}'", printable(p->second)));
      r.priority = *parsed;
    }
    if (body_bytes == 0)
      return bad_request("the body must be the witness: the bytes of a .wtns file (or, with Content-Type: "
                         "application/json, the circuit's input.json)");
    r.kind = Route::Kind::submit;
    r.key = key->second;
    return r;
  }

  if (target.path.size() > kProofs.size() + 1 && target.path.compare(0, kProofs.size() + 1, "/v1/proofs/") == 0) {
    r.id = target.path.substr(kProofs.size() + 1);
    if (method == http::verb::delete_) {
      if (auto bad = target.unknown_parameter({}); !bad.empty()) return bad_request(bad);
      r.kind = Route::Kind::cancel;
      return r;
    }
    if (!get) return wrong_method(method_name, target.path, "GET, HEAD, DELETE");
    if (auto bad = target.unknown_parameter({"wait"}); !bad.empty()) return bad_request(bad);
    if (const auto w = target.query.find("wait"); w != target.query.end()) {
      const std::string& s = w->second;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), r.wait_s);
      if (ec != std::errc{} || end != s.data() + s.size() || !(r.wait_s >= 0) || r.wait_s > 1e9)
        return bad_request(fmt::format("wait must be a number of seconds >= 0, got '{}'", printable(s)));
    }
    r.kind = Route::Kind::get_proof;
    return r;
  }

  if (target.path == "/v1/status" || target.path == "/metrics") {
    if (!get) return wrong_method(method_name, target.path, "GET, HEAD");
    if (auto bad = target.unknown_parameter({}); !bad.empty()) return bad_request(bad);
    r.kind = target.path == "/metrics" ? Route::Kind::metrics : Route::Kind::status;
    return r;
  }

  // rapidsnark's prover-server routes.
  constexpr std::string_view kInput = "/input/";
  if (target.path.size() > kInput.size() && target.path.starts_with(kInput)) {
    if (method != http::verb::post) return wrong_method(method_name, target.path, "POST");
    if (auto bad = target.unknown_parameter({}); !bad.empty()) return bad_request(bad);
    r.key = target.path.substr(kInput.size());
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end())
      return Refusal{http::status::not_found,
                     fmt::format("unknown circuit '{}' (the ids of [[keys]]: {})", printable(r.key),
                                 keys.empty() ? std::string("none") : fmt::format("{}", fmt::join(keys, ", "))),
                     {}};
    r.kind = Route::Kind::rapidsnark_input;
    return r;
  }
  if (target.path == "/status") {
    if (!get) return wrong_method(method_name, target.path, "GET, HEAD");
    r.kind = Route::Kind::rapidsnark_status;
    return r;
  }
  if (target.path == "/cancel" || target.path == "/start" || target.path == "/stop") {
    if (method != http::verb::post) return wrong_method(method_name, target.path, "POST");
    r.kind = target.path == "/cancel" ? Route::Kind::rapidsnark_cancel : Route::Kind::rapidsnark_status;
    return r;
  }

  return Refusal{http::status::not_found,
                 fmt::format("no such endpoint: {} (see docs/daemon.md: /v1/proofs, /v1/status, /metrics, and "
                             "rapidsnark's /input/<circuit>, /status, /cancel, /start, /stop)",
                             printable(target.path)),
                 {}};
}

}  // namespace pacer::host::serve
