#pragma once
// rapidsnark's prover-server routes, over the daemon's queue (docs/daemon.md, "rapidsnark
// clients"): POST /input/<circuit> with the input.json as its body proves it with the key whose id
// is <circuit>; GET /status answers for the latest such proof ({"status": "busy" | "success" |
// "failed" | "aborted" | "ready"}, with "proof" and "pubData" as JSON text on success); POST
// /cancel cancels it; POST /start and /stop answer the status (rapidsnark's do nothing either). Like rapidsnark, one proof at a time is followed: a new input cancels the
// one before it if it has not ended. The /v1 routes are unaffected.
#include <functional>
#include <mutex>
#include <string>
#include <variant>

#include "http_server.hpp"
#include "job_store.hpp"

namespace pacer::host::serve {

class RapidsnarkFront {
 public:
  // Queues a proof of `key_id` from the request (a job id), or the response that refuses it.
  using Enqueue = std::function<std::variant<std::string, Response>(const std::string& key_id, Request& request)>;
  using ErrorResponse = std::function<Response(http::status, const std::string&)>;

  RapidsnarkFront(JobStore& store, Enqueue enqueue, ErrorResponse error);

  Response input(const std::string& circuit, Request& request);
  Response status();
  Response cancel();

 private:
  Response status_of(const std::string& id);
  JobStore& store_;
  Enqueue enqueue_;
  ErrorResponse error_;
  std::mutex mu_;
  std::string current_;  // the latest job submitted through /input; empty: none yet
};

}  // namespace pacer::host::serve
