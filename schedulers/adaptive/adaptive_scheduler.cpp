// Scheduler "adaptive": the membw budget of throttled (MembwGate), with the number of tokens
// chosen at run time by hill climbing on what the stages measure, so nothing needs tuning.
//
// Epochs: an epoch ends after max(6, 3 x tokens) membw stages finished under the current budget
// (stages that were already running when the budget changed do not count: they ran under the old
// one), or after 3 when a probe up runs at under half the best of its search. Its throughput is
// the membw stages' streaming rate (declared bytes over run time, summed over the epoch's stages)
// times the mean number streaming (the time integral of the gate's holders over the epoch,
// exact): counting only the bytes of stages that happened to end within the epoch would be off by
// up to a stage at each end. Its inflation is the mean run time per
// byte against the least seen at one token.
//
// Search: hold the best budget for `dwell` epochs, then probe one token more; if that is better
// by more than 2 %, adopt it and keep climbing; else probe one token less; adopt it if it is no
// more than 2 % worse than the best seen in this search (equal throughput with less inflation and
// less memory in flight is better); else go back to the best and double the dwell (at most 16).
// A hold epoch 15 % below the best's reference, or inflation above 3x, starts a new search at once.
// The first search starts at one token and doubles the budget while that pays (1, 2, 4, 8...),
// then bisects between the last budget that paid and the first that did not: climbing one token
// at a time from 1 spent most of a short run below the knee (in the simulation, 400 proofs with
// the knee at 12 stages ran at 68 % of the best static budget; doubling, test_schedulers.cpp).
//
// Why not a throughput cap (admit while measured throughput < target): when contention slows
// every stage, measured throughput falls, the cap admits less, throughput falls further, and the
// cap collapses. Comparing neighbouring budgets, and always probing upward again, cannot ratchet
// down that way: a budget is only given up for one that measured at least as well.
#include <algorithm>
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

class AdaptiveScheduler final : public Scheduler {
 public:
  AdaptiveScheduler(Timekeeper& time, unsigned max_tokens, std::shared_ptr<spdlog::logger> log)
      : time_(time), max_tokens_(max_tokens), log_(std::move(log)), gate_(1) {
    epoch_started_ = integrated_to_ = time_.now();
  }
  ~AdaptiveScheduler() override {
    if (log_) log_->debug("adaptive scheduler: ended at {} membw tokens after {} epochs", best_, epochs_);
  }

  void admit(const StageTicket& t, std::function<void()> start) override {
    if (t.cls != ResourceClass::membw) return start();
    {
      std::lock_guard lock(mu_);
      generation_of_[key(t)] = generation_;
    }
    gate_.admit(t, [this, start = std::move(start)] {
      streaming(+1);
      start();
    });
  }
  bool checkpoint(const StageTicket& t, std::function<void()> resume) override {
    if (t.cls != ResourceClass::membw) return true;
    const bool go = gate_.checkpoint(t, [this, resume = std::move(resume)] {
      streaming(+1);
      resume();
    });
    if (!go) streaming(-1);
    return go;
  }
  void finished(const StageTicket& t, const StageStats& stats) override {
    if (t.cls != ResourceClass::membw) return;
    streaming(-1);
    gate_.finished(t);
    unsigned next = 0;
    {
      std::lock_guard lock(mu_);
      const auto it = generation_of_.find(key(t));
      const bool counts = it != generation_of_.end() && it->second == generation_ && !stats.failed;
      if (it != generation_of_.end()) generation_of_.erase(it);
      if (!counts) return;
      bytes_ += double(stats.bytes);
      run_seconds_ += std::chrono::duration<double>(stats.run).count();
      if (stats.bytes > 0) per_byte_ += double(stats.run.count()) / double(stats.bytes);
      ++stages_;
      if (stages_ < epoch_length() && !clearly_worse()) return;
      next = end_epoch();
    }
    if (next) gate_.set_capacity(next);
  }

  unsigned tokens() const { return gate_.capacity(); }

 private:
  enum class Phase { hold, up, down };

  static uint64_t key(const StageTicket& t) { return (t.job << 8) ^ (uint64_t(t.stage) << 4) ^ t.part; }
  unsigned epoch_length() const { return std::max(6u, 3 * gate_.capacity()); }

  // The gate's holders (membw stages streaming now) change by `delta`; integrates them over time.
  void streaming(int delta) {
    std::lock_guard lock(mu_);
    integrate(time_.now());
    streaming_ = unsigned(int(streaming_) + delta);
  }
  void integrate(Clock::time_point now) {
    holder_seconds_ += streaming_ * std::chrono::duration<double>(now - integrated_to_).count();
    integrated_to_ = now;
  }

  // The epoch's throughput so far (with mu_ held).
  double throughput_so_far() {
    const auto now = time_.now();
    integrate(now);
    const double seconds = std::max(1e-9, std::chrono::duration<double>(now - epoch_started_).count());
    const double rate = run_seconds_ > 0 ? bytes_ / run_seconds_ : 0;  // per streaming stage
    return rate * holder_seconds_ / seconds;
  }
  // A probe up that already runs at under half the search's best ends early: past a cliff an
  // epoch of 3 x tokens stages can last longer than many good ones (the budget is what collapsed).
  bool clearly_worse() {
    return phase_ == Phase::up && search_peak_ > 0 && stages_ >= 3 && throughput_so_far() < 0.5 * search_peak_;
  }

  // Called with mu_ held at the end of an epoch; returns the next budget (0: unchanged).
  unsigned end_epoch() {
    const auto now = time_.now();
    const double throughput = throughput_so_far(), per_byte = per_byte_ / stages_;
    const unsigned cap = gate_.capacity();
    if (cap == 1) alone_per_byte_ = alone_per_byte_ > 0 ? std::min(alone_per_byte_, per_byte) : per_byte;
    const double inflation = alone_per_byte_ > 0 ? per_byte / alone_per_byte_ : 1;
    ++epochs_;
    unsigned next = cap;
    switch (phase_) {
      case Phase::hold:
        if (throughput < 0.85 * best_throughput_ || inflation > 3) dwell_ = 1, hold_left_ = 0;
        best_throughput_ = throughput;
        search_peak_ = throughput;
        if (hold_left_ > 0) --hold_left_;
        if (hold_left_ == 0) {
          ceiling_ = 0;  // conditions may have changed since the last search: one token up again
          next = probe_up_or_down();
        }
        break;
      case Phase::up:
        if (throughput > 1.02 * search_peak_) {
          best_ = cap, best_throughput_ = search_peak_ = throughput;
        } else {
          ceiling_ = cap;  // the optimum lies below this budget: bisect under it, then probe down
          doubling_ = false;
        }
        next = probe_up_or_down();
        break;
      case Phase::down:
        if (throughput >= 0.98 * search_peak_) {
          // The best seen in this search, not only on the way up: else a run of probes each 2 %
          // below the last walks down past the optimum.
          best_ = cap, best_throughput_ = throughput, search_peak_ = std::max(search_peak_, throughput);
          next = probe_down_or_hold();
        } else {
          next = hold_best(std::min(16u, dwell_ * 2));
        }
        break;
    }
    if (log_)
      log_->debug("adaptive scheduler: {} tokens: {:.0f} MB/s, inflation {:.2f}; next {}", cap, throughput / 1e6,
                  inflation, next);
    bytes_ = per_byte_ = run_seconds_ = holder_seconds_ = 0;
    stages_ = 0;
    epoch_started_ = now;
    if (next != cap) ++generation_;  // stages admitted under the old budget do not count
    return next == cap ? 0 : next;
  }
  // One token up, or double while the first search pays, or halfway to the ceiling once one is
  // known; at the ceiling (or max_tokens), one token down.
  unsigned probe_up_or_down() {
    const unsigned limit = ceiling_ ? ceiling_ - 1 : max_tokens_;
    if (best_ >= limit) return probe_down_or_hold();
    const unsigned step = doubling_ ? std::max(1u, best_ / 2) : 1;
    return phase_ = Phase::up, std::min(limit, best_ + step);
  }
  unsigned probe_down_or_hold() {
    if (best_ > 1) return phase_ = Phase::down, best_ - 1;
    return hold_best(std::min(16u, dwell_ * 2));
  }
  unsigned hold_best(unsigned dwell) {
    phase_ = Phase::hold;
    dwell_ = dwell;
    hold_left_ = dwell;
    return best_;
  }

  Timekeeper& time_;
  const unsigned max_tokens_;
  std::shared_ptr<spdlog::logger> log_;
  MembwGate gate_;
  std::mutex mu_;
  std::map<uint64_t, uint64_t> generation_of_;  // membw stage -> budget generation it was admitted in
  uint64_t generation_ = 0;
  Clock::time_point epoch_started_, integrated_to_;
  unsigned streaming_ = 0;  // membw stages admitted (or resumed) and not yet ended or paused
  double bytes_ = 0, per_byte_ = 0, run_seconds_ = 0, holder_seconds_ = 0;
  unsigned stages_ = 0, epochs_ = 0;
  Phase phase_ = Phase::up;  // the first epoch runs at one token, then climbs
  unsigned best_ = 1, dwell_ = 1, hold_left_ = 0;
  unsigned ceiling_ = 0;   // the least budget that did not pay in this search (0: none yet)
  bool doubling_ = true;   // the first search doubles the budget until a step does not pay
  double best_throughput_ = 0, search_peak_ = 0, alone_per_byte_ = 0;
};

std::unique_ptr<Scheduler> make_adaptive(const Params& params, HostServices& host) {
  const int64_t max_tokens = params.get_int("max_tokens", 64);
  if (max_tokens < 1 || max_tokens > 1024)
    throw InputError(fmt::format("{} max_tokens must be 1..1024 (the most membw stages it may ever allow at once), "
                                 "got {}",
                                 params.where(), max_tokens));
  if (!host.time) throw FailedError("adaptive scheduler needs the host's clock (HostServices::time)");
  return std::make_unique<AdaptiveScheduler>(*host.time, unsigned(max_tokens), host.log);
}

}  // namespace

PACER_PLUGIN(scheduler, "adaptive", "0.1.0", "hill climbing on measured membw throughput picks the membw budget",
             make_adaptive)
