#pragma once
// One running stage's checkpoints: where the scheduler may pause it.
//
// Every thread of the stage calls checkpoint(): its owner (the thread running the stage body) and
// the pool helpers of its loops; one at a time asks the scheduler. When the answer is "pause", only
// the owner waits; helpers see the paused flag and leave the stage's loops
// (ThreadPool::PauseWatch), so a paused stage holds one thread, not the pool the stage it yielded
// to needs (that priority inversion made msm_g2 on the CPU 9x slower under staggered). The owner
// waits at its next checkpoint, or before the stage reports finished (wait_resumed).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "pacer/scheduler.hpp"

namespace pacer {

class StageRun : public std::enable_shared_from_this<StageRun> {
 public:
  // Made on the owner's thread.
  StageRun(Scheduler& sched, const StageTicket& ticket);

  void checkpoint();
  // The owner, after the body: a stage paused by a helper's checkpoint is resumed (its slot given
  // back by the scheduler) before it reports finished, so the scheduler's books balance.
  void wait_resumed();
  const std::atomic<bool>* paused_flag() const { return &paused_; }
  // Time spent paused so far.
  std::chrono::nanoseconds paused();

 private:
  using Clock = std::chrono::steady_clock;
  void resume();

  Scheduler& sched_;
  const StageTicket ticket_;
  const std::thread::id owner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool asking_ = false, resumed_early_ = false;
  std::atomic<bool> paused_{false};  // written under mu_; atomic for the pool helpers that read it unlocked
  Clock::time_point paused_since_;
  std::chrono::nanoseconds paused_total_{0};
};

}  // namespace pacer
