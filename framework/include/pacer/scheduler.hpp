#pragma once
// Scheduler plugins decide when the stages of concurrent proofs may run (DESIGN.md, "Plugins").
#include <functional>

#include "pacer/stages.hpp"

namespace pacer {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Admission: call start() (from any thread, exactly once) when the stage may run.
  virtual void admit(const StageTicket& ticket, std::function<void()> start) = 0;
  // Pacing: called between chunks of a long stage; may block to pause it cooperatively.
  virtual void checkpoint(const StageTicket& ticket) = 0;
  // Feedback: the stage ended; what it measured.
  virtual void finished(const StageTicket& ticket, const StageStats& stats) = 0;
};

}  // namespace pacer
