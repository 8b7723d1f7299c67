#pragma once
// What the daemon's HTTP routes need from a store of jobs. Two implement it: JobStore
// (job_store.hpp: in memory, proved in this process; the default, one host) and PgJobQueue
// (queue/pg_store.hpp: rows in PostgreSQL that workers on any host lease; docs/scale-out.md).
// So the routes assume nothing about which process proves a job or holds its result.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "pacer/prover.hpp"
#include "priority.hpp"

namespace pacer::host::serve {

enum class JobState : uint8_t { queued, running, done, failed, cancelled };

std::string_view state_name(JobState s);
std::optional<JobState> parse_state(std::string_view name);
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
  unsigned attempts = 1;  // more: it ran again (a backend device failed, or its worker was lost)
};

struct StoreCounts {
  std::array<size_t, kPriorityCount> queued{};
  size_t running = 0, done = 0, failed = 0, cancelled = 0;  // done/failed/cancelled: kept now
  size_t queued_total() const { return queued[0] + queued[1] + queued[2] + queued[3]; }
};

// One accepted request's proof, as the routes hand it over.
struct Submission {
  std::string key_id;
  std::shared_ptr<ResidentKey> key;  // for a store that proves in this process; may be null otherwise
  WitnessSource witness;             // the same
  std::string body;                  // the request body as sent, for a store that keeps it (durable())
  bool computes_witness = false;     // the body is input.json for the key's witness generator
  Priority priority = Priority::normal;
};

// The store cannot be reached now (a database restarting): the routes answer 503 with Retry-After.
struct QueueUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  struct Accepted { std::string id; };
  struct Refused { std::chrono::seconds retry_after; size_t ahead; };  // queue full: 429
  struct Closed {};                                                   // shutting down: 503
  using SubmitResult = std::variant<Accepted, Refused, Closed>;
  enum class CancelResult { unknown, cancelled, cancelling, already_final };

  // The store keeps the request body itself (Submission::body), not a parsed witness.
  virtual bool durable() const { return false; }
  // What submit() would answer now for a proof of this priority, without taking one: lets a
  // request be refused before its witness is read.
  virtual SubmitResult admission(Priority priority) const = 0;
  virtual SubmitResult submit(Submission submission) = 0;
  virtual std::optional<JobView> find(const std::string& id) const = 0;
  // Calls `wake` (from any thread) once the job may be final and returns true; returns false,
  // without calling it, when the job is final already or unknown.
  virtual bool when_final(const std::string& id, std::function<void()> wake) = 0;
  // A queued job is cancelled at once; a running one when its prover lets it go (its proof dropped).
  virtual CancelResult cancel(const std::string& id) = 0;
  // Forgets final jobs older than their retention.
  virtual void expire() = 0;
  virtual StoreCounts counts() const = 0;
  // Shutdown: refuse new jobs; a store that proves here cancels its queued ones (reason in their error).
  virtual void close(const std::string& reason) = 0;
  // Proofs this process runs now, and, at the end of a shutdown, those marked cancelled.
  virtual size_t running() const = 0;
  virtual size_t abandon_running(const std::string& reason) = 0;
  // For /v1/status: a JSON object describing the store beyond counts (database, workers); "" for none.
  virtual std::string status_json() const { return {}; }
  // For /metrics: Prometheus text about the store beyond the daemon's own metrics; "" for none.
  virtual std::string metrics_text() const { return {}; }
};

}  // namespace pacer::host::serve
