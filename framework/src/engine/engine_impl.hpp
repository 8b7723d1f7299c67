#pragma once
// The engine's state (Prover::Impl), shared by its parts: prover.cpp (the public calls),
// dispatch.cpp (a proof's graph: asking the scheduler, running stages, moving on) and
// proof_end.cpp (completing, failing and retrying a proof). docs/architecture.md follows one proof
// through them.
#include "pacer/prover.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "admission.hpp"
#include "job.hpp"
#include "lane_pool.hpp"
#include "proof_graph.hpp"
#include "../keys/key_checks.hpp"
#include "../synthesis_users.hpp"
#include "pacer/error.hpp"
#include "pacer/thread_guard.hpp"
#include "pacer/thread_pool.hpp"
#include "../proof_stages.hpp"

namespace pacer {

namespace asio = boost::asio;

struct Prover::Impl {
  using Clock = std::chrono::steady_clock;

  Impl(EngineParts p, EngineOptions o)
      : parts(std::move(p)),
        options(std::move(o)),
        admission(std::clamp(options.jobs_in_flight, 1u, kMaxJobsInFlight),
                  options.memory_budget_bytes ? options.memory_budget_bytes : mem_available_bytes() / 4 * 3),
        lanes(parts.backend->info(), parts.log) {
    lane_calls_overlap = parts.backend->info().lane_calls_overlap;
    for (unsigned l = 0; l < lanes.lanes(); ++l) strands.push_back(asio::make_strand(drivers.get_executor()));
    if (parts.check_key_subgroups)
      key_checks = std::make_unique<KeyChecks>(
          *parts.backend, *parts.pool, parts.log, parts.key_check_records,
          KeyChecks::Lanes{[this](LanePool::Grant granted) { lanes.acquire(std::move(granted)); },
                           [this](Lane lane) { lanes.release(lane); },
                           [this](unsigned device, const std::string& why) { lanes.retire_device(device, why); }});
    // Each proof runs at most three stage bodies at once (synthesize, msm_g2 and one on its
    // lane's strand), five where the lane's calls overlap (msm_g2, the H MSM and, for small keys,
    // the A, B1 and C MSMs side by side), so that many per proof in flight means an admitted stage
    // never waits for a thread behind stages that are paused.
    const unsigned jobs = admission.max_in_flight();
    const unsigned threads = (lane_calls_overlap ? 5 : 3) * jobs + 1;
    for (unsigned t = 0; t < threads; ++t) {
      try {
        driver_threads.emplace_back(
            [this] { run_io_until_stopped(drivers, parts.log.get(), "an engine stage driver"); });
      } catch (const std::system_error& e) {
        stop_drivers();  // the destructor does not run for a constructor that throws
        throw InputError(fmt::format("[pipeline] jobs_in_flight (or bench --jobs) {}: the system refused to start "
                                     "stage driver thread {} of {}: {} (lower it, or raise the limit on processes "
                                     "and threads: ulimit -u, the cgroup's pids.max)",
                                     jobs, t + 1, threads, e.code().message()));
      }
    }
  }
  ~Impl() {
    admission.wait_idle();
    key_checks.reset();  // it may hold a lane and post to the drivers
    stop_drivers();
  }
  void stop_drivers() {
    work.reset();  // run() returns once the last handler is done
    for (auto& t : driver_threads) t.join();
    driver_threads.clear();
  }

  // --- proofs in flight
  void submit(std::shared_ptr<Job> job) { start(admission.enqueue(std::move(job))); }
  void start(std::vector<std::shared_ptr<Job>> jobs_to_start) {
    for (auto& j : jobs_to_start) {
      j->out.started_at = Clock::now();
      asio::post(drivers, [this, j] { advance(j); });
    }
  }
  // The proof's synthesis ended (or the proof did, without one): on a sealed key the last one
  // lets the backend drop what only synthesis reads.
  void synthesis_ended(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard lock(job->mu);
      if (!std::exchange(job->synthesis_pending, false)) return;
    }
    if (synthesis_users.done(job->key.get()))
      call_and_log_exceptions([&] { parts.backend->release_synthesis(*job->key); }, parts.log.get(),
                              "releasing a key's synthesis data");
  }
  void synthesis_expected(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard lock(job->mu);
      if (std::exchange(job->synthesis_pending, true)) return;
    }
    synthesis_users.add(job->key.get());
  }
  // Last: once the last proof has ended the destructor may run (admission.wait_idle).
  void job_ended(const std::shared_ptr<Job>& job) {
    synthesis_ended(job);
    start(admission.ended(job->bytes));
  }

  // --- the graph of one proof
  // Moves a proof on. Whatever it throws (out of memory, a bug) fails that proof, never the
  // driver thread: advance_unguarded does the work.
  void advance(const std::shared_ptr<Job>& job);
  void advance_unguarded(const std::shared_ptr<Job>& job);
  void fail_stuck(const std::shared_ptr<Job>& job, std::exception_ptr error);
  void announce(const std::shared_ptr<Job>& job, Node node);
  void run_node(const std::shared_ptr<Job>& job, Node node, const StageTicket& ticket, Clock::time_point admitted_at);
  void node_ended(const std::shared_ptr<Job>& job, Node node, StageRecord record, std::exception_ptr error,
                  bool device_failed = false);
  void restart(const std::shared_ptr<Job>& job);
  void complete(const std::shared_ptr<Job>& job);
  ResourceClass resource_of(const Job& job, Node node) const {
    return kGraph[node].needs_lane ? parts.backend->resource(kGraph[node].stage, *job.key)
                                   : default_resource(kGraph[node].stage);
  }
  // Where a lane's calls overlap (every call on the host pool), the MSMs over the witness start once
  // synthesis has ended: they share its cores, so starting earlier gains nothing, and their scratch
  // would pile on top of the constraint rows, which a one-shot proof releases after its synthesis
  // (Prover::last_submission). That peak set a 2^18 CLI proof's RSS.
  uint16_t deps_of(Node node) const {
    const bool witness_msm = node == kMsmG2 || node == kMsmA || node == kMsmB1 || node == kMsmC;
    return kGraph[node].deps | (lane_calls_overlap && witness_msm ? bit(kSynthesize) : 0);
  }
  // Backend calls run on the lane's strand, one at a time; those that run on the host pool instead
  // (msm_g2 with g2 = "cpu", synthesis on the CPU) overlap them, and so does the critical path
  // (compute_h, then the H MSM) where the backend lets a lane's calls overlap: it never waits
  // behind the A, B1 and C MSMs, which stay one at a time (each one's scratch at a time) but for
  // small keys: there three MSMs in a row were the critical path (a 2^13 MSM has 10 windows, too
  // few tasks to fill 16 threads), and their scratch side by side is a few MB.
  // They still count as the lane's work (StageRecord::lane): they run on the lane the proof holds.
  static constexpr uint32_t kSideBySideMsmsBelow = uint32_t(1) << 17;  // domain size
  bool side_by_side(const Job& job, Node node) const {
    return lane_calls_overlap && (node == kMsmA || node == kMsmB1 || node == kMsmC) &&
           job.key->key().domain_size < kSideBySideMsmsBelow;
  }
  bool on_strand(const Job& job, Node node) const {
    if (!kGraph[node].needs_lane) return false;
    if (lane_calls_overlap && (node == kComputeH || node == kMsmH || node == kSynthesize)) return false;
    if (side_by_side(job, node)) return false;
    return (node != kMsmG2 && node != kSynthesize) || resource_of(job, node) == ResourceClass::device;
  }
  // Nodes a proof does not run are done from the start (no witness stage for a .wtns).
  static void skip_unused_nodes_locked(Job& job) {
    if (!job.options.witness_stage) {
      job.state[kWitness] = Job::NodeState::done;
      job.done_mask |= bit(kWitness);
    }
  }

  EngineParts parts;
  EngineOptions options;
  Admission<std::shared_ptr<Job>> admission;  // [pipeline] jobs_in_flight and the memory budget
  LanePool lanes;
  std::atomic<JobId> next_job{1};
  std::atomic<int> next_worker{0};
  bool lane_calls_overlap = false;        // BackendInfo::lane_calls_overlap
  std::unique_ptr<KeyChecks> key_checks;  // with check_key_subgroups
  SynthesisUsers synthesis_users;         // Prover::last_submission

  asio::io_context drivers;  // the stage drivers' queue; its threads are joined before the rest goes
  asio::executor_work_guard<asio::io_context::executor_type> work{drivers.get_executor()};
  std::vector<asio::strand<asio::io_context::executor_type>> strands;  // one per backend lane
  std::vector<std::thread> driver_threads;
};

}  // namespace pacer
