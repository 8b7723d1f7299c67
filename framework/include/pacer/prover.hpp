#pragma once
// The proof engine: runs the stages of a proof (DESIGN.md, "One proof, stage by stage") on the
// configured backend, allocator and scheduler. Curve-agnostic: the curve comes from the key.
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

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
  std::shared_ptr<Allocator> staging;  // buffers the backend copies to a device; null: `allocator`
  std::shared_ptr<Scheduler> scheduler;
  ThreadPool* pool = nullptr;
  std::shared_ptr<spdlog::logger> log;
  // [host] verify_proofs: every proof is verified (self_check.hpp) before prove() returns it.
  bool verify_proofs = false;
  // [host] check_key_subgroups: load_key checks every key point's subgroup (key_check.hpp).
  bool check_key_subgroups = true;
};

struct ProveOptions {
  // TEST ONLY: r = s = 0 makes the proof deterministic (and removes zero-knowledge).
  bool zero_blinding = false;
};

// One stage of one proof as it ran: the raw material of traces and per-stage percentiles.
struct StageRecord {
  Stage stage = Stage::load;
  std::chrono::steady_clock::time_point admitted_at, started_at, ended_at;  // asked, let in, done
  std::chrono::nanoseconds paused{0};  // time spent blocked in checkpoints
  uint64_t bytes = 0;
  size_t thread = 0;  // hash of the thread that ran it (for trace lanes)
};

struct ProofOutput {
  std::string proof_json;   // exactly as snarkjs writes proof.json (1-space indent)
  std::string public_json;  // public.json
  std::array<std::chrono::nanoseconds, kStageCount> stage_time{};  // wall time per stage, waits included
  std::vector<StageRecord> stages;  // in the order they ended
  JobId job = 0;
};

class Prover {
 public:
  explicit Prover(EngineParts parts);
  ~Prover();
  // Reads the zkey and makes it resident on the backend (once; reuse for many proofs). Also
  // indexes its coefficient section by row, so synthesis runs in parallel without atomics.
  std::shared_ptr<ResidentKey> load_key(const std::string& zkey_path);
  // One proof. Throws InputError for a witness that does not match the key. Thread-safe: concurrent
  // proofs share the backend, allocator, scheduler and pool.
  ProofOutput prove(ResidentKey& key, const Witness& witness, const ProveOptions& options = {});
  const EngineParts& parts() const { return parts_; }

  struct RowIndex;  // section-4 records grouped by (matrix, row); defined in prover.cpp

  // The backend's lanes (BackendInfo::lanes): a proof holds one for all of its backend calls.
  class Lanes {
   public:
    explicit Lanes(unsigned count);
    Lane acquire();  // blocks until one is free
    void release(Lane lane);

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<Lane> free_;
  };

 private:
  // Cached per key while `owner` (the key's shared_ptr) lives.
  std::shared_ptr<const RowIndex> row_index(const ProvingKey& key, const std::shared_ptr<const ProvingKey>& owner);

  EngineParts parts_;
  std::unique_ptr<Lanes> lanes_;
  std::atomic<JobId> next_job_{1};
  std::mutex index_mu_;
  std::map<const ProvingKey*, std::pair<std::weak_ptr<const ProvingKey>, std::shared_ptr<const RowIndex>>> indexes_;
};

}  // namespace pacer
