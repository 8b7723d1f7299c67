#pragma once
// The daemon's jobs: a queue ordered by priority (critical, high, normal, low; first come first
// served within one), fed to the engine no faster than it runs proofs ([pipeline] jobs_in_flight),
// so a late urgent job overtakes everything still waiting. Every accepted job ends in a final
// state (done, failed, cancelled) that is kept for [server] result_ttl_s, then forgotten.
//
// Thread-safe: HTTP handlers submit, poll and cancel; engine threads report ends (on_done).
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "metrics.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/prover.hpp"

namespace spdlog { class logger; }

namespace pacer::host::serve {

enum class JobState : uint8_t { queued, running, done, failed, cancelled };
enum class Priority : uint8_t { low, normal, high, critical };  // higher runs first
inline constexpr int kPriorityCount = 4;

std::string_view state_name(JobState s);
std::string_view priority_name(Priority p);
std::optional<Priority> parse_priority(std::string_view name);
inline bool is_final(JobState s) { return s >= JobState::done; }

// A copy of one job, for a response.
struct JobView {
  std::string id, key;
  Priority priority = Priority::normal;
  JobState state = JobState::queued;
  bool cancel_requested = false;
  // Unix time in seconds (0: not yet).
  double submitted_at = 0, started_at = 0, ended_at = 0;
  std::array<double, kStageCount> stage_seconds{};  // wall time per stage, waits included
  std::string proof_json, public_json, error;
  unsigned attempts = 1;  // 2: a backend device failed under it and it ran again on another
};

struct StoreCounts {
  std::array<size_t, kPriorityCount> queued{};
  size_t running = 0, done = 0, failed = 0, cancelled = 0;  // done/failed/cancelled: kept now
  size_t queued_total() const { return queued[0] + queued[1] + queued[2] + queued[3]; }
};

class JobStore {
 public:
  struct Limits {
    unsigned max_queued = 1024;      // jobs that may wait at or ahead of a new one's priority
    std::chrono::seconds result_ttl{600};
  };
  JobStore(Prover& prover, Metrics& metrics, Limits limits, std::shared_ptr<spdlog::logger> log);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  struct Accepted { std::string id; };
  struct Refused { std::chrono::seconds retry_after; size_t ahead; };  // queue full: 429
  struct Closed {};                                                   // shutting down: 503
  using SubmitResult = std::variant<Accepted, Refused, Closed>;
  // `witness` gives the proof's witness; computes_witness: it runs a witness generator, which then
  // runs as the proof's own witness stage (ProveOptions::witness_stage).
  SubmitResult submit(std::string key_id, std::shared_ptr<ResidentKey> key, WitnessSource witness,
                      bool computes_witness, Priority priority);

  std::optional<JobView> find(const std::string& id) const;
  // Calls `wake` (from any thread) once the job is final and returns true; returns false, without
  // calling it, when the job is final already or unknown.
  bool when_final(const std::string& id, std::function<void()> wake);

  enum class CancelResult { unknown, cancelled, cancelling, already_final };
  // A queued job is cancelled at once; a running one when the engine lets it go (its proof dropped).
  CancelResult cancel(const std::string& id);

  // Forgets final jobs that ended more than result_ttl ago.
  void expire();
  StoreCounts counts() const;

  // Shutdown: refuse new jobs and cancel the queued ones (reason in their error).
  void close(const std::string& reason);
  size_t running() const;
  // Marks every job still running as cancelled (the engine may still finish it; its proof is dropped).
  size_t abandon_running(const std::string& reason);

 private:
  struct Job;
  void dispatch_locked();  // hands queued jobs to the engine while it has room
  void proof_ended(const std::shared_ptr<Job>& job);
  void finalize_locked(const std::shared_ptr<Job>& job, JobState state, std::vector<std::function<void()>>& wake);
  // 128 bits from the OS CSPRNG, as 32 hex digits: a job id is its reader's only credential
  // besides the token, so it must not be guessable from ids seen earlier.
  std::string new_id_locked();

  Prover& prover_;
  Metrics& metrics_;
  Limits limits_;
  std::shared_ptr<spdlog::logger> log_;
  const unsigned engine_slots_;

  mutable std::mutex mu_;
  std::condition_variable engine_idle_;  // in_engine_ fell to 0 (the destructor waits for it)
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::array<std::deque<std::shared_ptr<Job>>, kPriorityCount> queues_;
  std::deque<std::shared_ptr<Job>> ended_;  // final jobs in the order they ended, for expiry
  unsigned in_engine_ = 0;                  // proofs handed to the engine and not yet ended
  bool closed_ = false;
  double mean_proof_seconds_ = 0;           // for Retry-After
};

}  // namespace pacer::host::serve
