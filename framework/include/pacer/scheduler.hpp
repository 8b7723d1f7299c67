#pragma once
// Scheduler plugins decide when the stages of concurrent proofs may run (docs/schedulers.md). The interface is callback-based and never needs a thread of its own, so
// the same scheduler runs in the engine (real time, Asio timers) and in a deterministic
// simulation (tests/unit/sim_engine.hpp: a fake clock and a contention model).
#include <chrono>
#include <functional>

#include "pacer/stages.hpp"

namespace pacer {

// Time and timers lent to a scheduler (HostServices::time). The engine's are steady_clock and an
// Asio timer thread; a simulation's are its own clock.
class Timekeeper {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~Timekeeper() = default;
  virtual Clock::time_point now() const = 0;
  // Runs fn once, at or after `when`, on another call stack (never inside call_at). Timers still
  // pending when the host shuts down are dropped, after the engine has drained every proof.
  virtual void call_at(Clock::time_point when, std::function<void()> fn) = 0;
};

// Contract, for every method: called from any thread, concurrently; callbacks (start, resume) may
// be called from any thread, outside the scheduler's own locks, each exactly once.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Admission: call start() when the stage may run; inline (before admit returns) is allowed.
  virtual void admit(const StageTicket& ticket, std::function<void()> start) = 0;
  // Pacing, between chunks of a running stage. Return true to let it go on now; return false to
  // pause it, and then call resume() exactly once, later and never from inside this call.
  virtual bool checkpoint(const StageTicket& ticket, std::function<void()> resume) = 0;
  // Feedback: the stage ended (or was skipped because its proof failed); what it measured.
  virtual void finished(const StageTicket& ticket, const StageStats& stats) = 0;
};

}  // namespace pacer
