#pragma once
// The proof engine: runs the stages of a proof (DESIGN.md, "One proof, stage by stage") on the
// configured backend, allocator and scheduler. Curve-agnostic: the curve comes from the key.
#include <array>
#include <chrono>
#include <memory>
#include <string>

#include "pacer/allocator.hpp"
#include "pacer/backend.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/scheduler.hpp"
#include "pacer/stages.hpp"

namespace spdlog { class logger; }

namespace pacer {

class ThreadPool;

// The plugin objects a prover runs on (made by the host from the config).
struct EngineParts {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<Allocator> allocator;
  std::shared_ptr<Scheduler> scheduler;
  ThreadPool* pool = nullptr;
  std::shared_ptr<spdlog::logger> log;
};

struct ProveOptions {
  // TEST ONLY: r = s = 0 makes the proof deterministic (and removes zero-knowledge).
  bool zero_blinding = false;
};

struct ProofOutput {
  std::string proof_json;   // exactly as snarkjs writes proof.json (1-space indent)
  std::string public_json;  // public.json
  std::array<std::chrono::nanoseconds, kStageCount> stage_time{};  // wall time per stage
};

class Prover {
 public:
  explicit Prover(EngineParts parts);
  ~Prover();
  // Reads the zkey and makes it resident on the backend (once; reuse for many proofs).
  std::shared_ptr<ResidentKey> load_key(const std::string& zkey_path);
  // One proof. Throws InputError for a witness that does not match the key.
  ProofOutput prove(ResidentKey& key, const Witness& witness, const ProveOptions& options = {});
  const EngineParts& parts() const { return parts_; }

 private:
  EngineParts parts_;
  JobId next_job_ = 1;
};

}  // namespace pacer
