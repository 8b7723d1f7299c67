#include "api.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

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

// A witness that does not fit the key it was sent for: 422, found from the .wtns header before
// its values are read into the allocator.
struct WrongWitness {
  std::string reason;
};

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

Api::Api(asio::io_context& io, JobQueue& store, Metrics& metrics, Runtime& runtime, std::vector<ServedKey> keys,
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
            if (!key) return error(http::status::not_found, "unknown circuit");  // route() checked it
            return enqueue(*key, request, Priority::normal);
          },
          [this](http::status status, const std::string& reason) { return error(status, reason); }) {
  for (const auto& k : keys_) key_ids_.push_back(k.id);
}

Response Api::error(http::status status, const std::string& reason) {
  return json_response(status, json{{"error", one_line(reason)}});
}

Response Api::refusal(const Refusal& r) {
  Response response = error(r.status, r.reason);
  for (const auto& [field, value] : r.headers) response.set(field, value);
  return response;
}

std::optional<Response> Api::check_header(const RequestHeader& header) {
  if (auto refused = serve::check_header(header, server_.token, server_.max_body_bytes)) return refusal(*refused);
  return std::nullopt;
}

void Api::handle(Request request, Respond respond, OnClientGone on_gone) {
  // Whatever a request does, it ends here as a response: nothing it throws reaches the io threads.
  try {
    const auto method = request.method_string();
    const auto target = request.target();
    auto routed = route(request.method(), std::string_view(method.data(), method.size()),
                        std::string_view(target.data(), target.size()), request.body().size(), key_ids_);
    if (const auto* refused = std::get_if<Refusal>(&routed)) return respond(refusal(*refused));
    const Route& r = std::get<Route>(routed);
    switch (r.kind) {
      case Route::Kind::submit: return submit(r, request, respond);
      case Route::Kind::get_proof: return get_proof(r, respond, on_gone);
      case Route::Kind::cancel: return respond(cancel(r.id));
      case Route::Kind::status: return respond(status());
      case Route::Kind::metrics: return respond(metrics());
      case Route::Kind::rapidsnark_input: return respond(rapidsnark_.input(r.key, request));
      case Route::Kind::rapidsnark_status: return respond(rapidsnark_.status());
      case Route::Kind::rapidsnark_cancel: return respond(rapidsnark_.cancel());
    }
    respond(error(http::status::internal_server_error, "unreachable: a route without a handler"));
  } catch (const QueueUnavailable& e) {
    respond(unavailable(e));
  } catch (const std::exception& e) {
    respond(error(http::status::internal_server_error, e.what()));
  } catch (...) {
    respond(error(http::status::internal_server_error, "unknown exception"));
  }
}

Response Api::unavailable(const QueueUnavailable& e) {
  // Clients retry; the store reconnects with backoff meanwhile.
  Response r = error(http::status::service_unavailable, fmt::format("the job queue is unreachable now: {}", e.what()));
  r.set(http::field::retry_after, "2");
  return r;
}

Response Api::queue_full(const JobQueue::Refused& refused, Priority priority) {
  Response r = error(http::status::too_many_requests,
                     fmt::format("queue full: {} proofs of priority {} or higher are waiting ([server] max_queued = "
                                 "{}); retry after {} s",
                                 refused.ahead, priority_name(priority), server_.max_queued,
                                 refused.retry_after.count()));
  r.set(http::field::retry_after, std::to_string(refused.retry_after.count()));
  return r;
}

void Api::submit(const Route& route, Request& request, Respond& respond) {
  const ServedKey* key = find_key(route.key);
  if (!key) return respond(error(http::status::not_found, "unknown key"));  // route() checked it
  auto queued = enqueue(*key, request, route.priority);
  if (auto* refused = std::get_if<Response>(&queued)) return respond(std::move(*refused));
  const std::string& id = std::get<std::string>(queued);
  Response r = json_response(http::status::accepted, json{{"id", id}, {"state", "queued"}, {"key", key->id},
                                                          {"priority", priority_name(route.priority)}});
  r.set(http::field::location, fmt::format("{}/{}", kProofs, id));
  respond(std::move(r));
}

const ServedKey* Api::find_key(const std::string& id) const {
  const auto key = std::find_if(keys_.begin(), keys_.end(), [&](const ServedKey& k) { return k.id == id; });
  return key == keys_.end() ? nullptr : &*key;
}

std::variant<std::string, Response> Api::enqueue(const ServedKey& key, Request& request, Priority priority) {
  // Refusals come before the body is read into the allocator, so that a refused body never takes
  // (pooled) memory: a full queue first, then the body against the key.
  const auto admission = store_.admission(priority);
  if (const auto* refused = std::get_if<JobQueue::Refused>(&admission)) return queue_full(*refused, priority);
  if (std::holds_alternative<JobQueue::Closed>(admission))
    return error(http::status::service_unavailable, "the daemon is shutting down and takes no new proofs");

  // "application/json; charset=utf-8" too: the media type before any parameter, any case.
  const std::string_view content_type = sv(request[http::field::content_type]);
  std::string media(content_type.substr(0, content_type.find(';')));
  media.erase(media.find_last_not_of(" \t") + 1);
  std::transform(media.begin(), media.end(), media.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool input_json = media == "application/json";
  if (request.body().empty())
    return error(http::status::bad_request, input_json ? "the body must be the circuit's input.json"
                                                       : "the body must be the witness: the bytes of a .wtns file (or, "
                                                         "with Content-Type: application/json, the circuit's input.json)");
  // A durable store keeps the body as sent (a worker elsewhere parses it again); it is still read
  // here, so that a bad one is refused now rather than failing on a worker.
  std::string body_copy = store_.durable() ? request.body() : std::string();
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
    const ProvingKey& pk = *key.header;
    std::shared_ptr<const Witness> witness;
    try {
      witness = std::make_shared<const Witness>(read_wtns_bytes(
          "the request body", std::move(request.body()), runtime_.witness_allocator(),
          [&](CurveId curve, uint64_t n_values) {
            // Named by id: the key's path on the server is nobody's business.
            if (curve != pk.curve)
              throw WrongWitness{fmt::format("the witness is for {} but key '{}' is for {}", curve_json_name(curve),
                                             key.id, curve_json_name(pk.curve))};
            if (n_values != pk.n_vars)
              throw WrongWitness{fmt::format("the witness has {} values but key '{}' expects {} (nVars): was it "
                                             "computed for this circuit?",
                                             n_values, key.id, pk.n_vars)};
          }));
    } catch (const WrongWitness& e) {
      return error(http::status::unprocessable_entity, e.reason);
    } catch (const InputError& e) {
      return error(http::status::bad_request, e.what());
    }
    source = [witness] { return witness; };
  }

  Submission submission{key.id, key.key, std::move(source), std::move(body_copy), input_json, priority};
  const auto result = store_.submit(std::move(submission));
  if (const auto* accepted = std::get_if<JobQueue::Accepted>(&result)) return accepted->id;
  if (const auto* refused = std::get_if<JobQueue::Refused>(&result)) return queue_full(*refused, priority);
  return error(http::status::service_unavailable, "the daemon is shutting down and takes no new proofs");
}

Response Api::job_response(const std::string& id) {
  const auto job = store_.find(id);
  if (!job) return error(http::status::not_found, fmt::format("no proof with id '{}' (unknown, or its result expired "
                                                              "after [server] result_ttl_s)", printable(id, 64)));
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

void Api::get_proof(const Route& route, Respond& respond, const OnClientGone& on_gone) {
  const double wait = std::min(route.wait_s, static_cast<double>(server_.max_wait_s));
  if (wait <= 0) return respond(job_response(route.id));
  // Long-poll: the timer ends at the deadline, or earlier when the job reaches a final state or
  // the client goes away. On a strand of its own, the wait is started before the wake-up can be
  // posted, so none is missed. What wakes it holds the timer weakly: a job that stays queued for
  // long keeps no connection alive through its waiters.
  auto timer = std::make_shared<asio::steady_timer>(
      asio::make_strand(io_),
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wait)));
  auto gone = std::make_shared<std::atomic<bool>>(false);
  const std::weak_ptr<asio::steady_timer> weak = timer;
  const auto wake = [weak] {
    if (auto t = weak.lock()) asio::post(t->get_executor(), [t] { t->cancel(); });
  };
  on_gone([gone, wake] {
    *gone = true;
    wake();
  });
  asio::post(timer->get_executor(), [this, id = route.id, timer, gone, wake, respond = std::move(respond)]() mutable {
    if (*gone) return respond(error(http::status::request_timeout, "the client went away"));
    timer->async_wait([this, id, timer, gone, respond = std::move(respond)](const boost::system::error_code&) {
      if (*gone) return respond(error(http::status::request_timeout, "the client went away"));  // nobody reads it
      try {  // a timer handler: what escapes it ends io.run()
        respond(job_response(id));
      } catch (const QueueUnavailable& e) {
        respond(unavailable(e));
      } catch (const std::exception& e) {
        respond(error(http::status::internal_server_error, e.what()));
      }
    });
    bool waiting = false;
    try {
      waiting = store_.when_final(id, wake);
    } catch (const std::exception&) {  // the store is unreachable: answered (503) from the handler
    }
    if (!waiting) timer->cancel();  // final already, or unknown: answer now
  });
}

Response Api::cancel(const std::string& id) {
  switch (store_.cancel(id)) {
    case JobQueue::CancelResult::unknown: return job_response(id);  // 404
    case JobQueue::CancelResult::cancelled: return job_response(id);
    case JobQueue::CancelResult::cancelling: {
      Response r = job_response(id);
      r.result(http::status::accepted);  // final once the engine lets the proof go
      return r;
    }
    case JobQueue::CancelResult::already_final: {
      const auto job = store_.find(id);
      return error(http::status::conflict, fmt::format("proof {} is {} already", printable(id, 64),
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
    const ProvingKey& pk = *k.header;
    keys.push_back({{"id", k.id}, {"zkey", k.zkey}, {"curve", curve_json_name(pk.curve)}, {"n_vars", pk.n_vars},
                    {"n_public", pk.n_public}, {"domain_size", pk.domain_size}});
  }
  json alloc_json{{"plugin", config.allocator.plugin}};
  for_each_stat(alloc, [&](const char* name, uint64_t value) { alloc_json[name] = value; });
  json body{
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
  if (const std::string queue = store_.status_json(); !queue.empty()) body["queue_store"] = json::parse(queue);
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
  return make_response(http::status::ok, metrics_.render(g) + store_.metrics_text(),
                       "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace pacer::host::serve
