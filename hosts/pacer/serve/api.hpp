#pragma once
// The routes of `pacer serve` (docs/daemon.md): POST /v1/proofs (a .wtns body, or with
// Content-Type: application/json the circuit's input.json for the key's witness generator), GET
// and DELETE /v1/proofs/{id}, GET /v1/status, GET /metrics; and rapidsnark's prover-server routes
// (rapidsnark_front.hpp). Bodies are JSON; every refusal is a 4xx/5xx with {"error": "<one line>"}.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "http_server.hpp"
#include "job_store.hpp"
#include "metrics.hpp"
#include "pacer/config.hpp"
#include "pacer/runtime.hpp"
#include "pacer/witness/generator.hpp"
#include "rapidsnark_front.hpp"

namespace pacer::host::serve {

// A [[keys]] entry, resident on the backend for the daemon's life.
struct ServedKey {
  std::string id;
  std::string zkey;
  std::shared_ptr<ResidentKey> key;
  // The circuit's witness generator ([[keys]] wasm / circuit_cpp): proofs from input.json. May be null.
  std::shared_ptr<const witness::Generator> generator;
};

class Api final : public Handler {
 public:
  Api(boost::asio::io_context& io, JobStore& store, Metrics& metrics, Runtime& runtime, std::vector<ServedKey> keys,
      std::function<size_t()> connections);

  std::optional<Response> check_header(const RequestHeader& header) override;
  void handle(Request request, Respond respond) override;
  Response error(http::status status, const std::string& reason) override;
  void sent(unsigned status) override { metrics_.response(status); }

  void set_stopping() { stopping_ = true; }

 private:
  struct Target;
  void submit(const Target& target, Request& request, Respond& respond);
  // Queues the proof the request's body asks for (a job id), or the response that refuses it.
  std::variant<std::string, Response> enqueue(const ServedKey& key, Request& request, Priority priority);
  const ServedKey* find_key(const std::string& id) const;
  std::string key_ids() const;
  void get_proof(const std::string& id, const Target& target, Respond& respond);
  Response cancel(const std::string& id);
  Response status();
  Response metrics();
  Response job_response(const std::string& id);

  boost::asio::io_context& io_;
  JobStore& store_;
  Metrics& metrics_;
  Runtime& runtime_;
  std::vector<ServedKey> keys_;
  const Config::Server& server_;
  std::function<size_t()> connections_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<bool> stopping_{false};
  RapidsnarkFront rapidsnark_;
};

}  // namespace pacer::host::serve
