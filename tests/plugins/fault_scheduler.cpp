// Test-only scheduler "throwing": admits like greedy, except that the N-th admission of one stage
// throws FailedError. params: stage = a stage name (default "assemble"), at = N >= 1.
#include <atomic>
#include <functional>
#include <string>

#include "pacer/error.hpp"
#include "pacer/plugin.hpp"

namespace {

class ThrowingScheduler final : public pacer::Scheduler {
 public:
  ThrowingScheduler(pacer::Stage stage, int64_t at) : stage_(stage), at_(at) {}

  void admit(const pacer::StageTicket& ticket, std::function<void()> start) override {
    if (ticket.stage == stage_ && ++seen_ == at_)
      throw pacer::FailedError("throwing scheduler: injected fault at admission " + std::to_string(at_) + " of " +
                               std::string(pacer::stage_name(stage_)));
    start();
  }
  bool checkpoint(const pacer::StageTicket&, std::function<void()>) override { return true; }
  void finished(const pacer::StageTicket&, const pacer::StageStats&) override {}

 private:
  const pacer::Stage stage_;
  const int64_t at_;
  std::atomic<int64_t> seen_{0};
};

std::unique_ptr<pacer::Scheduler> make_throwing(const pacer::Params& params, pacer::HostServices&) {
  const std::string name = params.get_string("stage", "assemble");
  const int64_t at = params.get_int("at", 1);
  for (int s = 0; s < pacer::kStageCount; ++s)
    if (pacer::stage_name(static_cast<pacer::Stage>(s)) == name && at >= 1)
      return std::make_unique<ThrowingScheduler>(static_cast<pacer::Stage>(s), at);
  throw pacer::InputError(params.where() + " needs stage = a stage name and at >= 1");
}

}  // namespace

PACER_PLUGIN(scheduler, "throwing", "0.1.0", "TEST ONLY: greedy, but the N-th admission of a stage throws",
             make_throwing)
