#include "rapidsnark_front.hpp"

#include <nlohmann/json.hpp>

namespace pacer::host::serve {

namespace {

using json = nlohmann::json;

Response json_response(const json& body) {
  Response r{http::status::ok, 11};
  r.set(http::field::server, "pacer");
  r.set(http::field::content_type, "application/json");
  r.body() = body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  return r;
}

}  // namespace

RapidsnarkFront::RapidsnarkFront(JobStore& store, Enqueue enqueue, ErrorResponse error)
    : store_(store), enqueue_(std::move(enqueue)), error_(std::move(error)) {}

Response RapidsnarkFront::input(const std::string& circuit, Request& request) {
  auto queued = enqueue_(circuit, request);
  if (auto* refused = std::get_if<Response>(&queued)) return std::move(*refused);
  std::string previous;
  {
    std::lock_guard lock(mu_);
    previous = std::exchange(current_, std::get<std::string>(queued));
  }
  if (!previous.empty()) store_.cancel(previous);  // rapidsnark follows one proof: the new one
  return status();
}

Response RapidsnarkFront::status() {
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = current_;
  }
  return status_of(id);
}

Response RapidsnarkFront::status_of(const std::string& id) {
  const auto job = id.empty() ? std::nullopt : store_.find(id);
  if (!job) return json_response({{"status", "ready"}});  // none yet, or its result expired
  switch (job->state) {
    case JobState::queued:
    case JobState::running: return json_response({{"status", "busy"}});
    case JobState::done: {
      // rapidsnark sends the proof and the public signals as JSON text inside the JSON.
      const std::string proof = json::parse(job->proof_json).dump(), pub = json::parse(job->public_json).dump();
      return json_response({{"status", "success"}, {"proof", proof}, {"pubData", pub}});
    }
    case JobState::failed: return json_response({{"status", "failed"}, {"error", job->error}});
    case JobState::cancelled: return json_response({{"status", "aborted"}});
  }
  return error_(http::status::internal_server_error, "unknown job state");
}

Response RapidsnarkFront::cancel() {
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = current_;
  }
  if (!id.empty()) store_.cancel(id);
  return status_of(id);
}

}  // namespace pacer::host::serve
