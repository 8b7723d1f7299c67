#include "api.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pacer/error.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/witness/input_json.hpp"

namespace pacer::host::serve {

namespace asio = boost::asio;
using json = nlohmann::ordered_json;  // keys in the order written: id and state first

namespace {

constexpr std::string_view kProofs = "/v1/proofs";

// Beast 1.74 hands out boost::string_view.
std::string_view sv(boost::beast::string_view s) { return {s.data(), s.size()}; }

// One line, whatever the exception said.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

Response make_response(http::status status, std::string body, const char* content_type = "application/json") {
  Response r{status, 11};
  r.set(http::field::server, "pacer");
  r.set(http::field::content_type, content_type);
  r.body() = std::move(body);
  return r;
}

// Text from a request may be any bytes: invalid UTF-8 is written as U+FFFD instead of throwing
// (a throw here, outside every handler, once ended the process).
Response json_response(http::status status, const json& body) {
  return make_response(status, body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
}

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
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

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and '+' decoded; nullopt for a broken escape.
std::optional<std::string> url_decode(std::string_view s) {
  std::string out;
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

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Constant time in the token's length, so a timing probe learns nothing of its prefix.
bool same_secret(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

}  // namespace

// The request target, split: "/v1/proofs/abc?wait=5" -> path "/v1/proofs/abc", query {wait: 5}.
struct Api::Target {
  std::string path;
  std::map<std::string, std::string> query;
  std::string problem;  // non-empty: the target could not be read

  explicit Target(std::string_view target) {
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
        problem = fmt::format("bad percent-escape in the query \"{}\"", one_line(std::string(pair)));
        return;
      }
      if (!valid_utf8(*key) || !valid_utf8(*value)) {
        problem = "the query is not valid UTF-8 (after percent-decoding)";
        return;
      }
      query[*key] = *value;
    }
  }
  // The first query parameter not in `known`, as an error, or "".
  std::string unknown_parameter(std::initializer_list<std::string_view> known) const {
    for (const auto& [k, v] : query)
      if (std::find(known.begin(), known.end(), k) == known.end())
        return fmt::format("unknown query parameter '{}' (known here: {})", one_line(k), fmt::join(known, ", "));
    return "";
  }
};

Api::Api(asio::io_context& io, JobStore& store, Metrics& metrics, Runtime& runtime, std::vector<ServedKey> keys,
         std::function<size_t()> connections)
    : io_(io),
      store_(store),
      metrics_(metrics),
      runtime_(runtime),
      keys_(std::move(keys)),
      server_(runtime.config().server),
      connections_(std::move(connections)),
      rapidsnark_(
          store,
          [this](const std::string& key_id, Request& request) -> std::variant<std::string, Response> {
            const ServedKey* key = find_key(key_id);
            if (!key)
              return error(http::status::not_found,
                           fmt::format("unknown circuit '{}' (the ids of [[keys]]: {})", one_line(key_id), key_ids()));
            return enqueue(*key, request, Priority::normal);
          },
          [this](http::status status, const std::string& reason) { return error(status, reason); }) {}

const ServedKey* Api::find_key(const std::string& id) const {
  const auto key = std::find_if(keys_.begin(), keys_.end(), [&](const ServedKey& k) { return k.id == id; });
  return key == keys_.end() ? nullptr : &*key;
}

std::string Api::key_ids() const {
  std::vector<std::string> ids;
  for (const auto& k : keys_) ids.push_back(k.id);
  return ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "));
}

Response Api::error(http::status status, const std::string& reason) {
  return json_response(status, json{{"error", one_line(reason)}});
}

std::optional<Response> Api::check_header(const RequestHeader& header) {
  if (!server_.token.empty()) {
    const std::string_view auth = sv(header[http::field::authorization]);
    constexpr std::string_view kBearer = "Bearer ";
    if (auth.empty()) {
      Response r = error(http::status::unauthorized, "missing Authorization: Bearer <token> ([server] token is set)");
      r.set(http::field::www_authenticate, "Bearer");
      return r;
    }
    if (auth.size() < kBearer.size() || !std::equal(kBearer.begin(), kBearer.end(), auth.begin()) ||
        !same_secret(auth.substr(kBearer.size()), server_.token)) {
      Response r = error(http::status::unauthorized, "wrong bearer token");
      r.set(http::field::www_authenticate, "Bearer error=\"invalid_token\"");
      return r;
    }
  }
  const std::string_view length = sv(header[http::field::content_length]);
  uint64_t bytes = 0;
  if (!length.empty() && std::from_chars(length.data(), length.data() + length.size(), bytes).ec == std::errc{} &&
      bytes > server_.max_body_bytes)
    return error(http::status::payload_too_large,
                 fmt::format("the body of {} bytes is larger than the limit of {} bytes ([server] max_body_bytes)",
                             bytes, server_.max_body_bytes));
  return std::nullopt;
}

void Api::handle(Request request, Respond respond) {
  // Whatever a request does, it ends here as a response: nothing it throws reaches the io threads.
  try {
    const Target target(sv(request.target()));
    if (!target.problem.empty()) return respond(error(http::status::bad_request, target.problem));
    const auto method = request.method();
    auto wrong_method = [&](const char* allowed) {
      Response r = error(http::status::method_not_allowed, fmt::format("{} {}: method not allowed (allowed: {})",
                                                                       sv(request.method_string()), target.path, allowed));
      r.set(http::field::allow, allowed);
      return r;
    };
    if (target.path == kProofs) {
      if (method != http::verb::post) return respond(wrong_method("POST"));
      return submit(target, request, respond);
    }
    if (target.path.size() > kProofs.size() + 1 && target.path.compare(0, kProofs.size() + 1, "/v1/proofs/") == 0) {
      const std::string id = target.path.substr(kProofs.size() + 1);
      if (method == http::verb::get) return get_proof(id, target, respond);
      if (method == http::verb::delete_) {
        if (auto bad = target.unknown_parameter({}); !bad.empty()) return respond(error(http::status::bad_request, bad));
        return respond(cancel(id));
      }
      return respond(wrong_method("GET, DELETE"));
    }
    if (target.path == "/v1/status" || target.path == "/metrics") {
      if (method != http::verb::get) return respond(wrong_method("GET"));
      if (auto bad = target.unknown_parameter({}); !bad.empty()) return respond(error(http::status::bad_request, bad));
      return respond(target.path == "/metrics" ? metrics() : status());
    }
    // rapidsnark's prover-server routes (rapidsnark_front.hpp).
    if (target.path.starts_with("/input/") && target.path.size() > 7) {
      if (method != http::verb::post) return respond(wrong_method("POST"));
      return respond(rapidsnark_.input(target.path.substr(7), request));
    }
    if (target.path == "/status") {
      if (method != http::verb::get) return respond(wrong_method("GET"));
      return respond(rapidsnark_.status());
    }
    if (target.path == "/cancel" || target.path == "/start" || target.path == "/stop") {
      if (method != http::verb::post) return respond(wrong_method("POST"));
      // rapidsnark's /start and /stop do nothing either: the prover is always running.
      return respond(target.path == "/cancel" ? rapidsnark_.cancel() : rapidsnark_.status());
    }
    respond(error(http::status::not_found,
                  fmt::format("no such endpoint: {} (see docs/daemon.md: /v1/proofs, /v1/status, /metrics, and "
                              "rapidsnark's /input/<circuit>, /status, /cancel, /start, /stop)",
                              one_line(target.path))));
  } catch (const std::exception& e) {
    respond(error(http::status::internal_server_error, e.what()));
  } catch (...) {
    respond(error(http::status::internal_server_error, "unknown exception"));
  }
}

void Api::submit(const Target& target, Request& request, Respond& respond) {
  if (auto bad = target.unknown_parameter({"key", "priority"}); !bad.empty())
    return respond(error(http::status::bad_request, bad));
  const auto key_it = target.query.find("key");
  if (key_it == target.query.end())
    return respond(error(http::status::bad_request, fmt::format("POST /v1/proofs needs ?key=ID (keys: {})", key_ids())));
  const ServedKey* key = find_key(key_it->second);
  if (!key)
    return respond(error(http::status::not_found,
                         fmt::format("unknown key '{}' (keys: {})", one_line(key_it->second), key_ids())));
  Priority priority = Priority::normal;
  if (const auto p = target.query.find("priority"); p != target.query.end()) {
    const auto parsed = parse_priority(p->second);
    if (!parsed)
      return respond(error(http::status::bad_request,
                           fmt::format("priority must be critical, high, normal or low, got '{}'", one_line(p->second))));
    priority = *parsed;
  }
  auto queued = enqueue(*key, request, priority);
  if (auto* refused = std::get_if<Response>(&queued)) return respond(std::move(*refused));
  const std::string& id = std::get<std::string>(queued);
  Response r = json_response(http::status::accepted, json{{"id", id}, {"state", "queued"}, {"key", key->id},
                                                          {"priority", priority_name(priority)}});
  r.set(http::field::location, fmt::format("{}/{}", kProofs, id));
  respond(std::move(r));
}

std::variant<std::string, Response> Api::enqueue(const ServedKey& key, Request& request, Priority priority) {
  // "application/json; charset=utf-8" too: the media type before any parameter, any case.
  std::string media(sv(request[http::field::content_type]).substr(0, sv(request[http::field::content_type]).find(';')));
  media.erase(media.find_last_not_of(" \t") + 1);
  std::transform(media.begin(), media.end(), media.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool input_json = media == "application/json";
  if (request.body().empty())
    return error(http::status::bad_request, input_json ? "the body must be the circuit's input.json"
                                                       : "the body must be the witness: the bytes of a .wtns file (or, "
                                                         "with Content-Type: application/json, the circuit's input.json)");
  WitnessSource source;
  if (input_json) {
    if (!key.generator)
      return error(http::status::unsupported_media_type,
                   fmt::format("key '{}' has no witness generator, so it takes .wtns bodies only; give wasm = \"...\" or "
                               "circuit_cpp = \"...\" in its [[keys]] entry to prove input.json",
                               key.id));
    std::shared_ptr<const witness::CircuitInputs> inputs;
    try {
      inputs = std::make_shared<const witness::CircuitInputs>(
          witness::parse_input_json(request.body(), "the request body"));
    } catch (const InputError& e) {
      return error(http::status::bad_request, e.what());
    }
    try {
      key.generator->check_inputs(*inputs);  // a wrong signal is refused now, not as a failed proof later
    } catch (const InputError& e) {
      return error(http::status::unprocessable_entity, e.what());
    }
    source = [generator = key.generator, inputs, allocator = runtime_.witness_allocator()] {
      return std::make_shared<const Witness>(generator->compute(*inputs, allocator));
    };
  } else {
    std::shared_ptr<const Witness> witness;
    try {
      witness = std::make_shared<const Witness>(
          read_wtns_bytes("the request body", std::move(request.body()), runtime_.witness_allocator()));
    } catch (const InputError& e) {
      return error(http::status::bad_request, e.what());
    }
    try {
      check_witness_matches(key.key->key(), *witness);
    } catch (const InputError& e) {
      return error(http::status::unprocessable_entity, e.what());
    }
    source = [witness] { return witness; };
  }

  const auto result = store_.submit(key.id, key.key, std::move(source), input_json, priority);
  if (const auto* accepted = std::get_if<JobStore::Accepted>(&result)) return accepted->id;
  if (const auto* refused = std::get_if<JobStore::Refused>(&result)) {
    Response r = error(http::status::too_many_requests,
                       fmt::format("queue full: {} proofs of priority {} or higher are waiting ([server] max_queued = "
                                   "{}); retry after {} s",
                                   refused->ahead, priority_name(priority), server_.max_queued,
                                   refused->retry_after.count()));
    r.set(http::field::retry_after, std::to_string(refused->retry_after.count()));
    return r;
  }
  return error(http::status::service_unavailable, "the daemon is shutting down and takes no new proofs");
}

Response Api::job_response(const std::string& id) {
  const auto job = store_.find(id);
  if (!job) return error(http::status::not_found, fmt::format("no proof with id '{}' (unknown, or its result expired "
                                                              "after [server] result_ttl_s)", one_line(id)));
  json j{{"id", job->id}, {"key", job->key}, {"priority", priority_name(job->priority)}, {"state", state_name(job->state)}};
  json timings{{"submitted_at", job->submitted_at}};
  if (job->started_at > 0) {
    timings["started_at"] = job->started_at;
    timings["queued_s"] = job->started_at - job->submitted_at;
  }
  if (job->ended_at > 0) {
    timings["ended_at"] = job->ended_at;
    if (job->started_at > 0) timings["running_s"] = job->ended_at - job->started_at;
    timings["total_s"] = job->ended_at - job->submitted_at;
  }
  if (job->state == JobState::done) {
    json stages = json::object();
    for (int s = 0; s < kStageCount; ++s)
      if (job->stage_seconds[s] > 0) stages[std::string(stage_name(static_cast<Stage>(s)))] = job->stage_seconds[s];
    timings["stages_s"] = std::move(stages);
    j["proof"] = json::parse(job->proof_json);
    j["public"] = json::parse(job->public_json);
  }
  j["timings"] = std::move(timings);
  if (job->attempts > 1) j["attempts"] = job->attempts;  // ran again after a backend device failed
  if (job->cancel_requested) j["cancel_requested"] = true;
  if (!job->error.empty()) j["error"] = one_line(job->error);
  return json_response(http::status::ok, j);
}

void Api::get_proof(const std::string& id, const Target& target, Respond& respond) {
  if (auto bad = target.unknown_parameter({"wait"}); !bad.empty()) return respond(error(http::status::bad_request, bad));
  double wait = 0;
  if (const auto w = target.query.find("wait"); w != target.query.end()) {
    const std::string& s = w->second;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), wait);
    if (ec != std::errc{} || end != s.data() + s.size() || !(wait >= 0))
      return respond(error(http::status::bad_request, fmt::format("wait must be a number of seconds >= 0, got '{}'",
                                                                  one_line(s))));
    wait = std::min(wait, static_cast<double>(server_.max_wait_s));
  }
  if (wait <= 0) return respond(job_response(id));
  // Long-poll: the timer ends at the deadline, or earlier when the job reaches a final state. On a
  // strand of its own, the wait is started before the wake-up can be posted, so none is missed.
  auto timer = std::make_shared<asio::steady_timer>(
      asio::make_strand(io_),
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wait)));
  asio::post(timer->get_executor(), [this, id, timer, respond = std::move(respond)]() mutable {
    timer->async_wait([this, id, timer, respond = std::move(respond)](const boost::system::error_code&) {
      try {  // a timer handler: what escapes it ends io.run()
        respond(job_response(id));
      } catch (const std::exception& e) {
        respond(error(http::status::internal_server_error, e.what()));
      }
    });
    if (!store_.when_final(id, [timer] { asio::post(timer->get_executor(), [timer] { timer->cancel(); }); }))
      timer->cancel();  // final already, or unknown: answer now
  });
}

Response Api::cancel(const std::string& id) {
  switch (store_.cancel(id)) {
    case JobStore::CancelResult::unknown: return job_response(id);  // 404
    case JobStore::CancelResult::cancelled: return job_response(id);
    case JobStore::CancelResult::cancelling: {
      Response r = job_response(id);
      r.result(http::status::accepted);  // final once the engine lets the proof go
      return r;
    }
    case JobStore::CancelResult::already_final: {
      const auto job = store_.find(id);
      return error(http::status::conflict, fmt::format("proof {} is {} already", one_line(id),
                                                       job ? state_name(job->state) : "gone"));
    }
  }
  return error(http::status::internal_server_error, "unreachable");
}

Response Api::status() {
  const StoreCounts c = store_.counts();
  Prover& prover = runtime_.prover();
  const BackendInfo backend = prover.parts().backend->info();
  const Prover::LaneHealth health = prover.lane_health();
  const AllocStats alloc = prover.parts().allocator->stats();
  const Config& config = runtime_.config();
  json by_priority = json::object();
  for (int p = kPriorityCount - 1; p >= 0; --p) by_priority[std::string(priority_name(static_cast<Priority>(p)))] = c.queued[p];
  json keys = json::array();
  for (const auto& k : keys_) {
    const ProvingKey& pk = k.key->key();
    keys.push_back({{"id", k.id}, {"zkey", k.zkey}, {"curve", curve_json_name(pk.curve)}, {"n_vars", pk.n_vars},
                    {"n_public", pk.n_public}, {"domain_size", pk.domain_size}});
  }
  json alloc_json{{"plugin", config.allocator.plugin}};
  for_each_stat(alloc, [&](const char* name, uint64_t value) { alloc_json[name] = value; });
  const json body{
      {"state", stopping_ ? "stopping" : "serving"},
      {"uptime_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count()},
      {"queue", {{"queued", c.queued_total()}, {"by_priority", by_priority}, {"max_queued", server_.max_queued}}},
      {"in_flight", c.running},
      {"jobs_in_flight", prover.jobs_in_flight()},
      {"kept", {{"done", c.done}, {"failed", c.failed}, {"cancelled", c.cancelled},
                {"result_ttl_s", server_.result_ttl_s}}},
      {"keys", keys},
      {"backend", {{"plugin", config.backend.plugin}, {"devices", backend.devices}, {"lanes", backend.lanes},
                   {"lanes_in_service", health.in_service}, {"failed_devices", health.failed_devices},
                   {"device_bytes", backend.device_bytes}}},
      {"scheduler", {{"plugin", config.scheduler.plugin}}},
      {"allocator", alloc_json},
      {"memory", {{"resident_bytes", resident_bytes()}, {"engine_budget_bytes", prover.memory_budget_bytes()}}},
      {"connections", connections_()},
  };
  return json_response(http::status::ok, body);
}

Response Api::metrics() {
  const StoreCounts c = store_.counts();
  const AllocStats alloc = runtime_.prover().parts().allocator->stats();
  Gauges g;
  g.queued = c.queued_total();
  g.running = c.running;
  g.kept = c.done + c.failed + c.cancelled;
  g.allocator_live = alloc.live_bytes;
  g.allocator_peak = alloc.peak_bytes;
  g.allocator_hugepage = alloc.hugepage_bytes;
  g.resident_bytes = resident_bytes();
  g.connections = connections_();
  g.lanes_in_service = runtime_.prover().lane_health().in_service;
  return make_response(http::status::ok, metrics_.render(g), "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace pacer::host::serve
