// The proof engine: each proof is a graph of stages run on Boost.Asio executors under the
// scheduler (prover.hpp says what; docs/architecture.md follows one proof through it). The stage
// work itself is in proof_stages.cpp (assembly) and the backend (synthesis, compute_h, MSMs).
#include "pacer/prover.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/admission.hpp"
#include "engine/job.hpp"
#include "engine/lane_pool.hpp"
#include "engine/proof_graph.hpp"
#include "engine/stage_bodies.hpp"
#include "engine/stage_run.hpp"
#include "keys/key_checks.hpp"
#include "synthesis_users.hpp"
#include "pacer/error.hpp"
#include "pacer/self_check.hpp"
#include "pacer/thread_guard.hpp"
#include "pacer/thread_pool.hpp"
#include "proof_stages.hpp"

namespace pacer {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// Which stage driver thread this is (for traces): numbered as they first run a stage.
thread_local int t_worker = -1;

uint64_t thread_minor_faults() {
  struct rusage ru {};
  return ::getrusage(RUSAGE_THREAD, &ru) == 0 ? uint64_t(ru.ru_minflt) : 0;
}

}  // namespace

struct Prover::Impl {
  Impl(EngineParts p, EngineOptions o)
      : parts(std::move(p)),
        options(std::move(o)),
        admission(std::clamp(options.jobs_in_flight, 1u, kMaxJobsInFlight),
                  options.memory_budget_bytes ? options.memory_budget_bytes : mem_available_bytes() / 4 * 3),
        jobs(admission.max_in_flight()),
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
  const unsigned jobs;
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

void Prover::Impl::advance(const std::shared_ptr<Job>& job) {
  try {
    advance_unguarded(job);
  } catch (...) {
    fail_stuck(job, std::current_exception());
  }
}

// advance() threw midway, so the proof's own bookkeeping cannot be trusted to finish it: end it
// here, failed, unless it has ended already. A stage of it still running ends into a finished job
// and is dropped (the job's buffers live until that task lets go of it).
void Prover::Impl::fail_stuck(const std::shared_ptr<Job>& job, std::exception_ptr error) {
  const std::string what = [&] {
    try {
      std::rethrow_exception(error);
    } catch (...) {
      return describe_current_exception();
    }
  }();
  bool end_here = false, give_back_lane = false;
  {
    std::lock_guard lock(job->mu);
    if (!job->finished) {
      job->finished = end_here = true;
      if (!job->error)
        job->error = std::make_exception_ptr(
            FailedError(fmt::format("proof {}: the engine failed to move it on: {}", job->id, what)));
      if (job->has_lane && !job->lane_returned) give_back_lane = job->lane_returned = true;
    }
  }
  if (parts.log) parts.log->error("proof {}: the engine failed to move it on ({}); {}", job->id, what,
                                  end_here ? "the proof fails" : "it had ended already");
  if (!end_here) return;
  if (give_back_lane)
    call_and_log_exceptions([&] {
      parts.backend->end_proof(job->lane);
      lanes.release(job->lane);
    }, parts.log.get(), "giving a failed proof's lane back");
  try {
    job->out.ended_at = Clock::now();
    job->promise.set_exception(job->error);
  } catch (...) {  // satisfied already: the proof's waiter has its answer
  }
  call_and_log_exceptions(
      [&] {
        if (job->options.on_done) job->options.on_done();
      },
      parts.log.get(), "a proof's on_done");
  call_and_log_exceptions([&] { job_ended(job); }, parts.log.get(), "the end of a proof");
}

// Asks the scheduler for every node whose dependencies are met; after a failure, skips what has
// not been asked yet and runs release once nothing else is active; ends the proof after release.
void Prover::Impl::advance_unguarded(const std::shared_ptr<Job>& job) {
  std::vector<Node> ask;
  bool want_lane = false, give_back_lane = false, finish = false, again = false;
  {
    std::lock_guard lock(job->mu);
    if (job->finished) return;
    for (int n = 0; n < kNodes; ++n) {
      const Node node = static_cast<Node>(n);
      if (job->state[n] != Job::NodeState::waiting) continue;
      if (job->failed) {
        if (node == kRelease) continue;  // decided below
        job->state[n] = Job::NodeState::skipped;
        continue;
      }
      if ((job->done_mask & deps_of(node)) != deps_of(node)) continue;
      if (kGraph[n].needs_lane && !job->has_lane) {
        if (!job->lane_asked) want_lane = job->lane_asked = true;
        continue;
      }
      job->state[n] = Job::NodeState::asked;
      ++job->active;
      ask.push_back(node);
    }
    if (job->failed && job->active == 0 && job->state[kRelease] == Job::NodeState::waiting) {
      job->state[kRelease] = Job::NodeState::asked;  // a failed proof still gives its buffers back
      ++job->active;
      ask.push_back(kRelease);
    }
    bool lane_work_left = false;
    for (int n = 0; n < kNodes; ++n)
      lane_work_left |= (kLaneNodes & bit(Node(n))) && (job->state[n] == Job::NodeState::waiting ||
                                                        job->state[n] == Job::NodeState::asked);
    if (job->has_lane && !job->lane_returned && !lane_work_left) give_back_lane = job->lane_returned = true;
    const bool lane_pending = job->lane_asked && !job->has_lane;
    if (job->state[kRelease] == Job::NodeState::done && job->active == 0 && !lane_pending && !job->finished) {
      if (job->has_lane && !job->lane_returned) give_back_lane = job->lane_returned = true;
      if (job->retry && lanes.in_service() > 0) again = true;
      else finish = job->finished = true;
    }
  }
  if (give_back_lane) {
    parts.backend->end_proof(job->lane);
    lanes.release(job->lane);
  }
  if (again) return restart(job);
  if (want_lane)
    lanes.acquire([this, job](std::optional<Lane> lane) {
      {
        std::lock_guard lock(job->mu);
        if (lane) {
          job->lane = *lane;
          job->has_lane = true;
        } else {
          job->lane_asked = false;
          if (!job->failed) {
            job->failed = true;
            job->error = std::make_exception_ptr(FailedError(fmt::format(
                "proof {}: no backend lane left: every device of the backend has failed (the log says why)", job->id)));
          }
        }
      }
      asio::post(drivers, [this, job] { advance(job); });
    });
  for (Node node : ask) announce(job, node);
  if (!finish) return;
  // A proof on a key whose subgroup check is still running is withheld until it ends.
  if (job->trust && !job->error)
    return job->trust->when_settled([this, job] { asio::post(drivers, [this, job] { complete(job); }); });
  complete(job);
}

// The proof's last step, once its stages are done and its key's check has passed (or failed).
void Prover::Impl::complete(const std::shared_ptr<Job>& job) {
  if (job->trust && !job->error) job->error = job->trust->error();
  job->out.attempts = job->attempt;
  job->out.ended_at = Clock::now();
  job->witness.reset();
  // [host] verify_proofs: a proof that does not verify against its key fails its job, never returned.
  if (!job->error && parts.verify_proofs) {
    try {
      check_proof_output(job->key->key(), job->out, parts.log.get());
    } catch (...) {
      job->error = std::current_exception();
    }
  }
  if (job->error) job->promise.set_exception(job->error);
  else job->promise.set_value(std::move(job->out));
  if (job->options.on_done) {
    try {
      job->options.on_done();
    } catch (const std::exception& e) {
      if (parts.log) parts.log->error("proof {}: on_done threw: {}", job->id, e.what());
    } catch (...) {
      if (parts.log) parts.log->error("proof {}: on_done threw", job->id);
    }
  }
  job_ended(job);
}

// After a device failure: the failed attempt has wound down (every stage ended, buffers released,
// lane returned); run the whole proof again, from load, on whatever lane it gets next. Its stage
// records stay (marked failed), so the trace shows both attempts.
void Prover::Impl::restart(const std::shared_ptr<Job>& job) {
  std::string why;
  {
    std::lock_guard lock(job->mu);
    try {
      std::rethrow_exception(job->error);
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
    }
    job->state.fill(Job::NodeState::waiting);
    job->done_mask = 0;
    skip_unused_nodes_locked(*job);
    job->failed = job->retry = false;
    job->lane_asked = job->has_lane = job->lane_returned = false;
    job->error = nullptr;
    ++job->attempt;
    job->witness.reset();
    job->points = {};
  }
  synthesis_expected(job);  // it synthesises again (a backend rebuilds what it released)
  if (parts.log) parts.log->warn("{}; running proof {} again on another device (attempt {} of {})", why, job->id,
                                 job->attempt, kMaxAttempts);
  asio::post(drivers, [this, job] { advance(job); });
}

void Prover::Impl::announce(const std::shared_ptr<Job>& job, Node node) {
  const NodeSpec& spec = kGraph[node];
  StageTicket ticket;
  ticket.job = job->id;
  ticket.stage = spec.stage;
  ticket.cls = resource_of(*job, node);
  ticket.bytes = declared_bytes(parts, *job, node, ticket.cls);
  ticket.priority = node == kMsmG2 ? 1 : 0;  // synthesis yields to the G2 MSM under a budget
  ticket.part = spec.stage == Stage::msm_g1 ? static_cast<uint8_t>(spec.basis) : 0;
  const auto admitted_at = Clock::now();
  try {
    parts.scheduler->admit(ticket, [this, job, node, ticket, admitted_at] {
      auto body = [this, job, node, ticket, admitted_at] { run_node(job, node, ticket, admitted_at); };
      if (on_strand(*job, node)) asio::post(strands[job->lane], std::move(body));
      else asio::post(drivers, std::move(body));
    });
  } catch (...) {
    // A scheduler that throws fails this stage's proof only. Ended from the drivers, not here:
    // announce runs inside advance(), which must not re-enter itself for the same job.
    std::exception_ptr error = name_failure(std::current_exception(), job->id, spec);
    asio::post(drivers, [this, job, node, ticket, admitted_at, error] {
      StageRecord record;
      record.stage = kGraph[node].stage;
      record.part = ticket.part;
      record.admitted_at = record.started_at = admitted_at;
      record.ended_at = Clock::now();
      record.bytes = ticket.bytes;
      record.failed = true;
      node_ended(job, node, std::move(record), error);
    });
  }
}

void Prover::Impl::run_node(const std::shared_ptr<Job>& job, Node node, const StageTicket& ticket,
                            Clock::time_point admitted_at) {
  if (t_worker < 0) t_worker = next_worker++;
  const NodeSpec& spec = kGraph[node];
  StageRecord record;
  record.stage = spec.stage;
  record.part = ticket.part;
  record.admitted_at = admitted_at;
  record.started_at = Clock::now();
  record.bytes = ticket.bytes;
  record.worker = t_worker;
  record.thread = size_t(t_worker);
  // Ran on the lane (host-pool work does not).
  record.lane = on_strand(*job, node) || side_by_side(*job, node) ? int(job->lane) : -1;
  record.device = record.lane >= 0 ? int(lanes.device_of(job->lane)) : -1;
  bool skip;
  {
    std::lock_guard lock(job->mu);
    skip = job->failed && node != kRelease;
    record.attempt = uint8_t(job->attempt);
  }
  std::exception_ptr error;
  bool device_failed = false;
  auto run = std::make_shared<StageRun>(*parts.scheduler, ticket);
  const uint64_t faults_before = thread_minor_faults();
  if (!skip) {
    try {
      if (options.before_stage) options.before_stage(job->id, spec.stage, ticket.part);
      const Checkpoint checkpoint = [run] { run->checkpoint(); };
      ThreadPool::PauseWatch watch(run->paused_flag());
      run_stage_body(parts, *job, node, checkpoint, record);
    } catch (const DeviceFailedError& e) {
      error = name_failure(std::current_exception(), job->id, spec);
      device_failed = true;
      lanes.retire_device(e.device, e.what());
    } catch (...) {
      error = name_failure(std::current_exception(), job->id, spec);
    }
  }
  run->wait_resumed();
  record.ended_at = Clock::now();
  record.paused = run->paused();
  record.minor_faults = thread_minor_faults() - faults_before;
  record.failed = skip || error;
  StageStats stats;
  stats.started_at = record.started_at;
  stats.ended_at = record.ended_at;
  stats.queued = record.started_at - record.admitted_at;
  stats.paused = record.paused;
  stats.run = (record.ended_at - record.started_at) - record.paused;
  stats.bytes = ticket.bytes;
  stats.minor_faults = record.minor_faults;
  stats.failed = record.failed;
  try {
    parts.scheduler->finished(ticket, stats);
  } catch (...) {  // the scheduler's own failure fails this proof, like a stage's
    if (!error) error = name_failure(std::current_exception(), job->id, spec);
  }
  node_ended(job, node, std::move(record), error, device_failed);
}

void Prover::Impl::node_ended(const std::shared_ptr<Job>& job, Node node, StageRecord record,
                              std::exception_ptr error, bool device_failed) {
  if (node == kSynthesize) synthesis_ended(job);
  {
    std::lock_guard lock(job->mu);
    job->state[node] = Job::NodeState::done;
    job->done_mask |= bit(node);
    --job->active;
    job->out.stage_time[static_cast<int>(record.stage)] += record.ended_at - record.admitted_at;
    job->out.stages.push_back(std::move(record));
    if (error && !job->failed) {
      job->failed = true;
      job->error = error;
      job->retry = device_failed && job->attempt < kMaxAttempts;
    }
  }
  advance(job);
}

Prover::Prover(EngineParts parts, EngineOptions options) {
  if (!parts.backend || !parts.allocator || !parts.scheduler || !parts.pool)
    throw FailedError("prover needs a backend, an allocator, a scheduler and a thread pool");
  impl_ = std::make_shared<Impl>(std::move(parts), std::move(options));
}

Prover::~Prover() = default;  // Impl's destructor waits for every proof, then joins the drivers

const EngineParts& Prover::parts() const { return impl_->parts; }
unsigned Prover::jobs_in_flight() const { return impl_->jobs; }

Prover::LaneHealth Prover::lane_health() const { return impl_->lanes.health(); }
uint64_t Prover::memory_budget_bytes() const { return impl_->admission.budget(); }

uint64_t Prover::proof_bytes(const ResidentKey& resident) const {
  const ProvingKey& key = resident.key();
  const uint64_t n = key.domain_size, vars = key.n_vars;
  const bool on_device = impl_->parts.backend->vectors(resident) == VectorHome::device;
  // The witness, a/b/c where they live on the host, and there the scratch of the largest MSM in
  // flight (window digits, GLV images and buckets: about 160 bytes per point, measured from the
  // cpu kernels' allocations).
  if (on_device) return vars * sizeof(Fr256);
  return 3 * n * sizeof(Fr256) + vars * sizeof(Fr256) + std::max(n, vars) * 160;
}

std::shared_ptr<ResidentKey> Prover::load_key(const std::string& zkey_path) {
  auto key = read_zkey(zkey_path);
  if (impl_->key_checks) return impl_->key_checks->load(std::move(key));
  return impl_->parts.backend->load(key);
}

std::future<ProofOutput> Prover::submit(std::shared_ptr<ResidentKey> key, WitnessSource witness,
                                        const ProveOptions& options) {
  auto job = std::make_shared<Job>();
  job->id = impl_->next_job++;
  job->bytes = proof_bytes(*key);
  if (impl_->key_checks) job->trust = impl_->key_checks->trust_of(*key);
  if (job->trust && job->trust->settled() && job->trust->error()) {
    job->failed = true;  // a key that failed its check: the proof runs no stage
    job->error = job->trust->error();
  }
  job->key = std::move(key);
  job->source = std::move(witness);
  job->options = options;
  Impl::skip_unused_nodes_locked(*job);  // not shared yet
  job->out.job = job->id;
  job->out.submitted_at = Clock::now();
  auto future = job->promise.get_future();
  if (!job->failed) impl_->synthesis_expected(job);
  impl_->submit(std::move(job));
  return future;
}

void Prover::last_submission(const std::shared_ptr<ResidentKey>& key) {
  if (impl_->synthesis_users.seal(key.get()))
    call_and_log_exceptions([&] { impl_->parts.backend->release_synthesis(*key); }, impl_->parts.log.get(),
                            "releasing a key's synthesis data");
}

ProofOutput Prover::prove(ResidentKey& key, const Witness& witness, const ProveOptions& options) {
  check_witness_matches(key.key(), witness);
  // Non-owning: this call waits for the proof, and the proof's tasks end before its future is set.
  std::shared_ptr<ResidentKey> borrowed(&key, [](ResidentKey*) {});
  std::shared_ptr<const Witness> borrowed_witness(&witness, [](const Witness*) {});
  return submit(std::move(borrowed), [borrowed_witness] { return borrowed_witness; }, options).get();
}

}  // namespace pacer
