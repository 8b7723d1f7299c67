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

#include "job_queue.hpp"
#include "metrics.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/prover.hpp"
#include "priority.hpp"

namespace spdlog { class logger; }

namespace pacer::host::serve {

class JobStore final : public JobQueue {
 public:
  struct Limits {
    unsigned max_queued = 1024;      // jobs that may wait at or ahead of a new one's priority
    std::chrono::seconds result_ttl{600};
  };
  JobStore(Prover& prover, Metrics& metrics, Limits limits, std::shared_ptr<spdlog::logger> log);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // What submit() would answer now for a proof of this priority, without taking one: Refused
  // (queue full) or Closed, else Accepted with no id. Lets a request be refused before its
  // witness is read.
  SubmitResult admission(Priority priority) const override;
  SubmitResult submit(Submission submission) override;

  std::optional<JobView> find(const std::string& id) const override;
  // Calls `wake` (from any thread) once the job is final and returns true; returns false, without
  // calling it, when the job is final already or unknown.
  bool when_final(const std::string& id, std::function<void()> wake) override;

  // A queued job is cancelled at once; a running one when the engine lets it go (its proof dropped).
  CancelResult cancel(const std::string& id) override;

  // Forgets final jobs that ended more than result_ttl ago.
  void expire() override;
  StoreCounts counts() const override;

  // Shutdown: refuse new jobs and cancel the queued ones (reason in their error).
  void close(const std::string& reason) override;
  size_t running() const override;
  // Marks every job still running as cancelled (the engine may still finish it; its proof is dropped).
  size_t abandon_running(const std::string& reason) override;

 private:
  struct Job;
  void dispatch_locked();  // hands queued jobs to the engine while it has room
  void proof_ended(const std::shared_ptr<Job>& job);
  void finalize_locked(const std::shared_ptr<Job>& job, JobState state, std::vector<std::function<void()>>& wake);
  // 128 bits from the OS CSPRNG, as 32 hex digits: a job id is its reader's only credential
  // besides the token, so it must not be guessable from ids seen earlier.
  std::string new_id_locked();
  std::optional<Refused> queue_full_locked(Priority priority) const;

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
