// A running stage's checkpoints (stage_run.hpp).
#include "stage_run.hpp"

namespace pacer {

StageRun::StageRun(Scheduler& sched, const StageTicket& ticket)
    : sched_(sched), ticket_(ticket), owner_(std::this_thread::get_id()) {}

void StageRun::checkpoint() {
  const bool owner = std::this_thread::get_id() == owner_;
  std::unique_lock lock(mu_);
  if (owner) cv_.wait(lock, [&] { return !asking_ && !paused_; });
  else if (asking_ || paused_) return;
  asking_ = true;
  resumed_early_ = false;
  lock.unlock();
  auto self = shared_from_this();
  const bool go = sched_.checkpoint(ticket_, [self] { self->resume(); });
  lock.lock();
  asking_ = false;
  if (!go && !resumed_early_) {
    paused_ = true;
    paused_since_ = Clock::now();
    if (owner) cv_.wait(lock, [&] { return !paused_; });
  }
  cv_.notify_all();
}

void StageRun::wait_resumed() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !asking_ && !paused_; });
}

std::chrono::nanoseconds StageRun::paused() {
  std::lock_guard lock(mu_);
  return paused_total_;
}

void StageRun::resume() {
  std::lock_guard lock(mu_);
  if (asking_) {
    resumed_early_ = true;  // before checkpoint() returned false: do not pause at all
  } else if (paused_) {
    paused_ = false;
    paused_total_ += Clock::now() - paused_since_;
  }
  cv_.notify_all();
}

}  // namespace pacer
