// The end of a proof in the engine: completed (verified where asked, its waiter answered),
// failed where the engine itself could not move it on, or run again after a device failure.
#include "engine_impl.hpp"
#include "pacer/self_check.hpp"

namespace pacer {

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

}  // namespace pacer
