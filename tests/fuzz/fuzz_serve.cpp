// Fuzz target: the daemon's request parsing and routing (hosts/pacer/serve/request.cpp) over
// arbitrary bytes, as the server reads them: Beast's request parser with the server's header limit,
// the header checks (bearer token, transfer-coding, Content-Length against the body limit) before
// the body, then the body under that limit, the route and its parameters, and for a submission the
// witness read from the body and matched to the shipped mul3 key. Every refusal's JSON answer is
// written as the daemon writes it. Several requests on one connection (keep-alive, pipelining)
// follow one another. Only a refusal is expected; a crash, a sanitizer report, a hang or a large
// allocation is a finding.
#include <boost/beast/http.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "pacer/error.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "serve/request.hpp"

namespace {

namespace http = boost::beast::http;
namespace serve = pacer::host::serve;

constexpr uint64_t kMaxBodyBytes = 100'000;  // as tests/integration/serve.sh configures the daemon
constexpr const char* kToken = "s3cret";     // and a daemon with a token, for the checks on it
constexpr int kMaxRequests = 8;              // on one connection

// The JSON of an answer, as the daemon writes it (invalid UTF-8 replaced, never a throw).
void answer(const std::string& reason) {
  const nlohmann::ordered_json body{{"error", reason}};
  (void)body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void submit(const std::string& body) {
  static const auto key = pacer::read_zkey(std::string(PACER_SOURCE_DIR) + "/examples/circuits/mul3/bn128/circuit.zkey");
  struct WrongWitness {};
  try {
    (void)pacer::read_wtns_bytes("the request body", body, nullptr, [&](pacer::CurveId curve, uint64_t n_values) {
      if (curve != key->curve || n_values != key->n_vars) throw WrongWitness{};
    });
  } catch (const pacer::InputError& e) {
    answer(e.what());
  } catch (const WrongWitness&) {
    answer("wrong witness");
  }
}

// Feeds the parser from the front of `input` until it wants no more (the header, with eager off;
// the whole message, with eager on) or the input ends. False on a parse error.
bool feed(http::request_parser<http::string_body>& parser, std::string_view& input, std::string& error) {
  boost::system::error_code ec;
  while (!input.empty() && !parser.is_done()) {
    const size_t used = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
    input.remove_prefix(used);
    if (ec == http::error::need_more) return true;  // the client sent less: it stalls here
    if (ec) {
      error = ec.message();
      return false;
    }
    if (used == 0 || (parser.is_header_done() && !parser.eager())) return true;
  }
  return true;
}

// One request from the front of `input`; false when the connection would end here.
bool one_request(std::string_view& input, bool with_token) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(serve::kMaxHeaderBytes);
  parser.body_limit(std::numeric_limits<uint64_t>::max());
  std::string error;
  if (!feed(parser, input, error) || !parser.is_header_done()) {
    answer("malformed or incomplete request: " + error);
    return false;
  }
  if (auto refused = serve::check_header(parser.get().base(), with_token ? kToken : "", kMaxBodyBytes)) {
    answer(refused->reason);
    return false;
  }
  parser.body_limit(kMaxBodyBytes);  // a chunked body is counted as it arrives
  parser.eager(true);
  if (!feed(parser, input, error) || !parser.is_done()) {
    answer("the body is malformed, over the limit or not whole: " + error);
    return false;
  }
  const http::request<http::string_body> request = parser.release();
  const auto method = request.method_string();
  const auto target = request.target();
  const auto routed = serve::route(request.method(), std::string_view(method.data(), method.size()),
                                   std::string_view(target.data(), target.size()), request.body().size(),
                                   {"mul3-bn128", "poseidon3-bn128"});
  if (const auto* refused = std::get_if<serve::Refusal>(&routed)) answer(refused->reason);
  else if (std::get<serve::Route>(routed).kind == serve::Route::Kind::submit) submit(request.body());
  else answer(serve::printable(std::get<serve::Route>(routed).id, 64));  // an unknown id is named in its 404
  return request.keep_alive();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first byte picks a daemon with or without a token; the rest is what a client sends.
  if (size == 0) return 0;
  const bool with_token = data[0] & 1;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (int i = 0; i < kMaxRequests && !input.empty(); ++i)
    if (!one_request(input, with_token)) break;
  return 0;
}
