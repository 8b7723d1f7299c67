#pragma once
// The proof engine (docs/architecture.md). A proof is a graph of stages: [witness ->] load ->
// {synthesize, msm_g2, msm_g1 A/B1/C}; synthesize -> compute_h -> msm_g1 H;
// assemble after every MSM; release last. Independent stages of one proof overlap; N proofs run
// with J in flight. Stage bodies run on Boost.Asio executors: a pool of stage drivers whose
// numeric loops share the one CPU ThreadPool, and one strand per backend lane for a proof's
// compute_h and G1 MSMs. Every stage is announced to the scheduler (StageTicket), admitted,
// paced at its checkpoints and reported (StageStats). Curve-agnostic: the curve comes from the key.
//
// Failure: a stage that throws fails its own proof (its future holds the error, naming the proof
// and the stage); stages of that proof not yet started are skipped, its buffers are released,
// and every other proof carries on. A backend call that throws DeviceFailedError also takes that
// device's lanes out of service, and the proof runs once more, from load, on another device. A
// proof's tasks hold the proof's state by shared_ptr and its future is fulfilled only after the
// last of them has ended, so no task outlives what it uses.
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
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

// The plugin objects a prover runs on (made by the runtime from the config).
struct EngineParts {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<Allocator> allocator;
  std::shared_ptr<Allocator> staging;  // buffers the backend copies to a device; null: `allocator`
  std::shared_ptr<Scheduler> scheduler;
  ThreadPool* pool = nullptr;
  std::shared_ptr<spdlog::logger> log;
  // [host] verify_proofs: every proof is verified (self_check.hpp) before prove() returns it.
  bool verify_proofs = false;
  // [host] check_key_subgroups: every key point's subgroup is checked (key_check.hpp) once per key,
  // beside its first proofs, which are withheld until it passes (framework/src/keys/key_checks.hpp).
  bool check_key_subgroups = true;
  // Where keys that passed are recorded (<cache dir>/key-checks), so that later runs skip the
  // check; empty: no records, every load checks.
  std::filesystem::path key_check_records;
};

struct EngineOptions {
  // Proofs in flight at once ([pipeline] jobs_in_flight, or bench --jobs); at most kMaxJobsInFlight.
  unsigned jobs_in_flight = 1;
  // Bytes the proofs in flight may hold together (a/b/c, witness, MSM scratch: proof_bytes()).
  // 0 = three quarters of MemAvailable at start. A proof bigger than the budget still runs, alone.
  uint64_t memory_budget_bytes = 0;
  // TEST ONLY: called at the start of every stage body; what it throws fails that stage.
  std::function<void(JobId, Stage, uint8_t part)> before_stage;
};
inline constexpr unsigned kMaxJobsInFlight = 256;

struct ProveOptions {
  // TEST ONLY: r = s = 0 makes the proof deterministic (and removes zero-knowledge).
  bool zero_blinding = false;
  // The WitnessSource runs a witness generator (input.json -> witness): it then runs as the
  // proof's own `witness` stage, admitted and paced by the scheduler like the other CPU stages,
  // instead of inside `load`.
  bool witness_stage = false;
  // Called once the proof's future is ready (done or failed), on an engine thread: it must be quick
  // and must not wait on other proofs. Lets a daemon learn of every end without a thread per proof.
  // What it throws is logged and dropped.
  std::function<void()> on_done;
};

// One stage of one proof as it ran: the raw material of traces, waterfalls and percentiles.
struct StageRecord {
  Stage stage = Stage::load;
  uint8_t part = 0;  // msm_g1: the Basis
  std::chrono::steady_clock::time_point admitted_at, started_at, ended_at;  // asked, let in, done
  std::chrono::nanoseconds paused{0};  // time spent paused in checkpoints
  uint64_t bytes = 0;                  // declared in its ticket
  uint64_t minor_faults = 0;           // page faults of its driver thread while it ran
  uint64_t bytes_released = 0;         // release: bytes handed back to the allocators
  int worker = -1;                     // stage driver thread that ran it (0, 1, ...)
  int lane = -1;                       // backend lane, for the stages that run on one
  int device = -1;                     // the lane's device (BackendInfo::lane_devices)
  bool failed = false;
  uint8_t attempt = 1;                 // 2: the proof's second run, after a device failure
  size_t thread = 0;                   // = worker (kept for older trace readers)
};

struct ProofOutput {
  std::string proof_json;   // exactly as snarkjs writes proof.json (1-space indent)
  std::string public_json;  // public.json
  std::array<std::chrono::nanoseconds, kStageCount> stage_time{};  // wall time per stage, waits included
  std::vector<StageRecord> stages;  // in the order they ended
  JobId job = 0;
  unsigned attempts = 1;  // 2: a device failed under the first attempt and the proof ran again elsewhere
  std::chrono::steady_clock::time_point submitted_at, started_at, ended_at;  // queued, in flight, done
};

// Reads (or makes) the witness of one proof; runs inside its load stage (or as its witness stage:
// ProveOptions::witness_stage), once per attempt: a proof run again after a device failure calls it
// a second time.
using WitnessSource = std::function<std::shared_ptr<const Witness>()>;

class Prover {
 public:
  explicit Prover(EngineParts parts, EngineOptions options = {});
  ~Prover();  // waits for every proof submitted
  Prover(const Prover&) = delete;
  Prover& operator=(const Prover&) = delete;

  // Reads the zkey and makes it resident on the backend (once; reuse for many proofs). With
  // check_key_subgroups, a key without a valid check record is checked beside the proofs: they are
  // handed out only once it passes, and fail with its InputError (naming the point) when it does not.
  std::shared_ptr<ResidentKey> load_key(const std::string& zkey_path);
  // Queues one proof; it starts when fewer than jobs_in_flight proofs run and the memory budget
  // allows. The future throws what failed the proof (InputError for a witness that does not match
  // the key). Thread-safe.
  std::future<ProofOutput> submit(std::shared_ptr<ResidentKey> key, WitnessSource witness,
                                  const ProveOptions& options = {});
  // No more proofs will be submitted on `key` (a one-shot `pacer prove`): once those submitted
  // have synthesised, the backend may drop what only synthesis reads (Backend::release_synthesis).
  // A proof submitted later still works, at the cost of rebuilding it.
  void last_submission(const std::shared_ptr<ResidentKey>& key);
  // One proof, waited for. `key` and `witness` must outlive the call (they do: it blocks).
  ProofOutput prove(ResidentKey& key, const Witness& witness, const ProveOptions& options = {});

  const EngineParts& parts() const;
  unsigned jobs_in_flight() const;  // effective: options, capped by kMaxJobsInFlight
  // The backend's lanes still in service, and the devices taken out after a DeviceFailedError.
  struct LaneHealth {
    unsigned lanes = 0, in_service = 0;
    std::vector<unsigned> failed_devices;
  };
  LaneHealth lane_health() const;
  uint64_t memory_budget_bytes() const;
  // What one proof on this key holds in host memory at its peak, for admission (witness, a/b/c
  // where they live on the host, MSM scratch where the backend computes on the host).
  uint64_t proof_bytes(const ResidentKey& key) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace pacer
