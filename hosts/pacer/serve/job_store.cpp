#include "job_store.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/os_random.hpp"

namespace pacer::host::serve {

namespace {

using SteadyClock = std::chrono::steady_clock;

double unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

std::string_view state_name(JobState s) {
  constexpr std::string_view names[] = {"queued", "running", "done", "failed", "cancelled"};
  return names[static_cast<int>(s)];
}

std::string_view priority_name(Priority p) {
  constexpr std::string_view names[] = {"low", "normal", "high", "critical"};
  return names[static_cast<int>(p)];
}

std::optional<Priority> parse_priority(std::string_view name) {
  for (int p = 0; p < kPriorityCount; ++p)
    if (priority_name(static_cast<Priority>(p)) == name) return static_cast<Priority>(p);
  return std::nullopt;
}

struct JobStore::Job {
  std::string id, key_id;
  std::shared_ptr<ResidentKey> key;
  WitnessSource witness;  // until the engine has it: a .wtns read, or input.json for the generator
  bool computes_witness = false;  // the source runs a witness generator (the proof's witness stage)
  Priority priority = Priority::normal;
  JobState state = JobState::queued;
  bool cancel_requested = false;
  bool in_engine = false;
  SteadyClock::time_point submitted, started, ended;
  double submitted_at = 0, started_at = 0, ended_at = 0;
  std::future<ProofOutput> future;
  std::array<double, kStageCount> stage_seconds{};
  unsigned attempts = 1;
  std::string proof_json, public_json, error;
  std::vector<std::function<void()>> waiters;
};

JobStore::JobStore(Prover& prover, Metrics& metrics, Limits limits, std::shared_ptr<spdlog::logger> log)
    : prover_(prover),
      metrics_(metrics),
      limits_(limits),
      log_(std::move(log)),
      engine_slots_(std::max(1u, prover.jobs_in_flight())) {}

JobStore::~JobStore() {
  // Engine threads call back into this store until their proofs end.
  std::unique_lock lock(mu_);
  engine_idle_.wait(lock, [&] { return in_engine_ == 0; });
}

std::string JobStore::new_id_locked() {
  for (;;) {
    std::string id = os_random_hex(16);
    if (!jobs_.count(id)) return id;
  }
}

JobStore::SubmitResult JobStore::submit(std::string key_id, std::shared_ptr<ResidentKey> key, WitnessSource witness,
                                        bool computes_witness, Priority priority) {
  std::lock_guard lock(mu_);
  if (closed_) return Closed{};
  // The limit bounds the wait of the new job: only jobs that would run before it count, so an
  // urgent job still gets in behind a queue full of ordinary ones.
  size_t ahead = 0;
  for (int p = static_cast<int>(priority); p < kPriorityCount; ++p) ahead += queues_[p].size();
  if (ahead >= limits_.max_queued) {
    const double slots_to_free = static_cast<double>(ahead - limits_.max_queued + 1);
    const double wait = std::ceil(std::max(mean_proof_seconds_, 0.001) * slots_to_free / engine_slots_);
    return Refused{std::chrono::seconds(static_cast<int64_t>(std::clamp(wait, 1.0, 600.0))), ahead};
  }
  auto job = std::make_shared<Job>();
  job->id = new_id_locked();
  job->key_id = std::move(key_id);
  job->key = std::move(key);
  job->witness = std::move(witness);
  job->computes_witness = computes_witness;
  job->priority = priority;
  job->submitted = SteadyClock::now();
  job->submitted_at = unix_seconds(std::chrono::system_clock::now());
  jobs_.emplace(job->id, job);
  queues_[static_cast<int>(priority)].push_back(job);
  metrics_.submitted();
  std::string id = job->id;
  dispatch_locked();
  return Accepted{std::move(id)};
}

void JobStore::dispatch_locked() {
  while (in_engine_ < engine_slots_) {
    std::shared_ptr<Job> job;
    for (int p = kPriorityCount - 1; p >= 0 && !job; --p) {
      if (queues_[p].empty()) continue;
      job = std::move(queues_[p].front());
      queues_[p].pop_front();
    }
    if (!job) return;
    job->state = JobState::running;
    job->started = SteadyClock::now();
    job->started_at = unix_seconds(std::chrono::system_clock::now());
    metrics_.queue_wait(std::chrono::duration<double>(job->started - job->submitted).count());
    ProveOptions options;
    options.witness_stage = job->computes_witness;
    // Runs on an engine thread once the future is ready; it waits for mu_, which this thread holds
    // until job->future is set below.
    options.on_done = [this, job] { proof_ended(job); };
    try {
      job->future = prover_.submit(job->key, job->witness, options);
      job->in_engine = true;
      ++in_engine_;
    } catch (const std::exception& e) {
      job->error = fmt::format("the engine refused the proof: {}", e.what());
      std::vector<std::function<void()>> wake;
      finalize_locked(job, JobState::failed, wake);
      for (auto& w : wake) w();  // they only post to their connections' executors
    }
    job->witness = nullptr;  // the engine's copy is the one that counts now
  }
}

void JobStore::proof_ended(const std::shared_ptr<Job>& job) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard lock(mu_);
    --in_engine_;
    job->in_engine = false;
    ProofOutput out;
    std::string error;
    try {
      out = job->future.get();
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "unknown error";
    }
    if (!is_final(job->state)) {  // else abandoned at shutdown: already reported as cancelled
      if (error.empty()) {
        const double run = std::chrono::duration<double>(out.ended_at - out.started_at).count();
        mean_proof_seconds_ = mean_proof_seconds_ == 0 ? run : 0.9 * mean_proof_seconds_ + 0.1 * run;
        metrics_.proof(out);
        for (int s = 0; s < kStageCount; ++s)
          job->stage_seconds[s] = std::chrono::duration<double>(out.stage_time[s]).count();
        job->attempts = out.attempts;
        job->proof_json = std::move(out.proof_json);
        job->public_json = std::move(out.public_json);
      } else {
        job->error = error;
        log_->warn("proof {} (key {}) failed: {}", job->id, job->key_id, error);
      }
      if (job->cancel_requested) job->error = "cancelled by a DELETE request while it ran; its proof was dropped";
      finalize_locked(job, job->cancel_requested ? JobState::cancelled
                           : error.empty()        ? JobState::done
                                                  : JobState::failed,
                      wake);
    }
    dispatch_locked();
    if (in_engine_ == 0) engine_idle_.notify_all();
  }
  for (auto& w : wake) w();
}

void JobStore::finalize_locked(const std::shared_ptr<Job>& job, JobState state, std::vector<std::function<void()>>& wake) {
  job->state = state;
  job->ended = SteadyClock::now();
  job->ended_at = unix_seconds(std::chrono::system_clock::now());
  if (state != JobState::done) {
    job->proof_json.clear();
    job->public_json.clear();
  }
  job->witness = nullptr;
  metrics_.ended(state == JobState::done ? Outcome::done : state == JobState::failed ? Outcome::failed : Outcome::cancelled);
  for (auto& w : job->waiters) wake.push_back(std::move(w));
  job->waiters.clear();
  ended_.push_back(job);
}

std::optional<JobView> JobStore::find(const std::string& id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const Job& j = *it->second;
  return JobView{j.id, j.key_id, j.priority, j.state, j.cancel_requested, j.submitted_at, j.started_at, j.ended_at,
                 j.stage_seconds, j.proof_json, j.public_json, j.error, j.attempts};
}

bool JobStore::when_final(const std::string& id, std::function<void()> wake) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || is_final(it->second->state)) return false;
  it->second->waiters.push_back(std::move(wake));
  return true;
}

JobStore::CancelResult JobStore::cancel(const std::string& id) {
  std::vector<std::function<void()>> wake;
  CancelResult result;
  {
    std::lock_guard lock(mu_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return CancelResult::unknown;
    const auto& job = it->second;
    switch (job->state) {
      case JobState::queued: {
        auto& queue = queues_[static_cast<int>(job->priority)];
        queue.erase(std::find(queue.begin(), queue.end(), job));
        job->cancel_requested = true;
        job->error = "cancelled by a DELETE request before it ran";
        finalize_locked(job, JobState::cancelled, wake);
        result = CancelResult::cancelled;
        break;
      }
      case JobState::running:
        job->cancel_requested = true;
        result = CancelResult::cancelling;
        break;
      default: result = CancelResult::already_final;
    }
  }
  for (auto& w : wake) w();
  return result;
}

void JobStore::expire() {
  std::lock_guard lock(mu_);
  const auto cutoff = SteadyClock::now() - limits_.result_ttl;
  while (!ended_.empty() && ended_.front()->ended < cutoff) {
    jobs_.erase(ended_.front()->id);
    ended_.pop_front();
  }
}

StoreCounts JobStore::counts() const {
  std::lock_guard lock(mu_);
  StoreCounts c;
  for (int p = 0; p < kPriorityCount; ++p) c.queued[p] = queues_[p].size();
  for (const auto& [id, job] : jobs_) {
    switch (job->state) {
      case JobState::running: ++c.running; break;
      case JobState::done: ++c.done; break;
      case JobState::failed: ++c.failed; break;
      case JobState::cancelled: ++c.cancelled; break;
      case JobState::queued: break;
    }
  }
  return c;
}

void JobStore::close(const std::string& reason) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    for (auto& queue : queues_) {
      for (auto& job : queue) {
        job->error = reason;
        finalize_locked(job, JobState::cancelled, wake);
      }
      queue.clear();
    }
  }
  for (auto& w : wake) w();
}

size_t JobStore::running() const {
  std::lock_guard lock(mu_);
  return in_engine_;
}

size_t JobStore::abandon_running(const std::string& reason) {
  std::vector<std::function<void()>> wake;
  size_t n = 0;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, job] : jobs_) {
      if (job->state != JobState::running) continue;
      job->error = reason;
      finalize_locked(job, JobState::cancelled, wake);
      ++n;
    }
  }
  for (auto& w : wake) w();
  return n;
}

}  // namespace pacer::host::serve
