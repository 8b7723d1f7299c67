#pragma once
// The admission gate the pacing schedulers share (throttled, staggered, adaptive): at most
// `capacity` membw stages run at once; the others wait in order of priority, then of job, then of
// arrival. A running stage yields its slot at a checkpoint when a waiter of higher priority is
// queued (synthesis pauses while msm_g2 holds the budget) or when the capacity was lowered.
// Stages of any other resource class pass straight through. Thread-safe; callbacks run outside
// its lock, never inside the call that queued them... except start(), which admit() may run
// inline when a slot is free (the Scheduler contract allows it).
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "pacer/stages.hpp"

namespace pacer {

class MembwGate {
 public:
  explicit MembwGate(unsigned capacity) : capacity_(capacity ? capacity : 1) {}

  void admit(const StageTicket& ticket, std::function<void()> start);
  bool checkpoint(const StageTicket& ticket, std::function<void()> resume);
  void finished(const StageTicket& ticket, bool was_admitted_here = true);

  // Lowering it takes effect at the running stages' next checkpoints (they yield); raising it
  // admits waiters at once.
  void set_capacity(unsigned capacity);
  unsigned capacity() const;
  unsigned holders() const;       // membw stages running now
  unsigned max_holders() const;   // the most ever running at once (tests)
  size_t waiting() const;

 private:
  struct Waiter {
    StageTicket ticket;
    std::function<void()> go;  // start() or resume()
    uint64_t order;            // arrival; a yielded stage keeps its first arrival number
  };
  static bool before(const Waiter& a, const Waiter& b);
  // Grants free slots to waiters; returns their callbacks for the caller to run unlocked.
  std::vector<std::function<void()>> grant_locked();
  static void run_all(std::vector<std::function<void()>>& callbacks);

  mutable std::mutex mu_;
  unsigned capacity_;
  unsigned holders_ = 0, max_holders_ = 0;
  uint64_t arrivals_ = 0;
  std::vector<Waiter> waiting_;
};

}  // namespace pacer
