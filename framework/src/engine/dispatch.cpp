// A proof's graph in the engine: asking the scheduler for each stage whose inputs are ready,
// running it on a stage driver or the lane's strand, recording what it did, and moving on.
#include <sys/resource.h>

#include "engine_impl.hpp"
#include "stage_bodies.hpp"
#include "stage_run.hpp"

namespace pacer {
namespace {

// Which stage driver thread this is (for traces): numbered as they first run a stage.
thread_local int t_worker = -1;

uint64_t thread_minor_faults() {
  struct rusage ru {};
  return ::getrusage(RUSAGE_THREAD, &ru) == 0 ? uint64_t(ru.ru_minflt) : 0;
}

}  // namespace

void Prover::Impl::advance(const std::shared_ptr<Job>& job) {
  try {
    advance_unguarded(job);
  } catch (...) {
    fail_stuck(job, std::current_exception());
  }
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

}  // namespace pacer
