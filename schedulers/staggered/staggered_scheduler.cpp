// Scheduler "staggered": never co-schedules two bandwidth-bound stages. Two parts:
//  - a gate of one: at most one membw stage streams at any moment (MembwGate with capacity 1;
//    msm_g2 outranks synthesis at checkpoints, as in throttled);
//  - an offset between proof starts: a proof's `load` is admitted no earlier than `offset` after
//    the previous one's, where offset is a moving average of the membw run time of one proof
//    (the sum of its membw stages, measured) times `spacing`. Proofs then arrive at the gate
//    about when the previous one leaves it, instead of all at once holding their buffers while
//    they queue. The first proofs start at once (nothing measured yet).
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "pacer/membw_gate.hpp"
#include "pacer/plugin.hpp"

namespace {

using namespace pacer;
using Clock = Timekeeper::Clock;
using std::chrono::nanoseconds;

class StaggeredScheduler final : public Scheduler {
 public:
  StaggeredScheduler(Timekeeper& time, double spacing) : time_(time), spacing_(spacing), gate_(1) {}

  void admit(const StageTicket& t, std::function<void()> start) override {
    if (t.stage != Stage::load) return gate_.admit(t, std::move(start));
    std::unique_lock lock(mu_);
    loads_.push_back(std::move(start));
    release_loads(lock);
  }
  bool checkpoint(const StageTicket& t, std::function<void()> resume) override {
    return gate_.checkpoint(t, std::move(resume));
  }
  void finished(const StageTicket& t, const StageStats& stats) override {
    if (t.stage == Stage::load) return;
    gate_.finished(t);
    if (t.cls != ResourceClass::membw || stats.failed) return;
    std::lock_guard lock(mu_);
    auto& p = membw_of_job_[t.job];
    p.first += stats.run;
    // A proof's membw stages are synthesize, msm_g2 and release, and release comes last: once it
    // is measured, the proof's membw time is complete.
    if (t.stage == Stage::release) {
      const double total = double(p.first.count());
      average_ns_ = samples_ == 0 ? total : 0.8 * average_ns_ + 0.2 * total;
      ++samples_;
      membw_of_job_.erase(t.job);
    }
  }

 private:
  // Starts every queued load whose time has come; arms one timer for the next.
  void release_loads(std::unique_lock<std::mutex>& lock) {
    const auto now = time_.now();
    std::vector<std::function<void()>> go;
    while (!loads_.empty() && now >= next_start_) {
      go.push_back(std::move(loads_.front()));
      loads_.pop_front();
      next_start_ = std::max(next_start_, now) + nanoseconds(int64_t(average_ns_ * spacing_));
    }
    if (!loads_.empty() && !timer_armed_) {
      timer_armed_ = true;
      time_.call_at(next_start_, [this] {
        std::unique_lock again(mu_);
        timer_armed_ = false;
        release_loads(again);
      });
    }
    lock.unlock();
    for (auto& fn : go) fn();
  }

  Timekeeper& time_;
  const double spacing_;
  MembwGate gate_;
  std::mutex mu_;
  std::deque<std::function<void()>> loads_;
  Clock::time_point next_start_{};
  bool timer_armed_ = false;
  double average_ns_ = 0;
  uint64_t samples_ = 0;
  std::map<JobId, std::pair<nanoseconds, int>> membw_of_job_;  // membw run time so far
};

std::unique_ptr<Scheduler> make_staggered(const Params& params, HostServices& host) {
  const double spacing = params.get_double("spacing", 1.0);
  if (!(spacing >= 0 && spacing <= 16))
    throw InputError(fmt::format("{} spacing must be 0..16 (proof start offset, in measured membw times per proof; "
                                 "0 = no offset), got {}",
                                 params.where(), spacing));
  if (!host.time) throw FailedError("staggered scheduler needs the host's timers (HostServices::time)");
  if (host.log) host.log->debug("staggered scheduler: spacing {}", spacing);
  return std::make_unique<StaggeredScheduler>(*host.time, spacing);
}

}  // namespace

PACER_PLUGIN(scheduler, "staggered", "0.1.0",
             "one membw stage at a time; proof starts offset by their measured membw time", make_staggered)
