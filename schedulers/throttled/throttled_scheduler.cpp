// Scheduler "throttled": a static budget of memory-bandwidth work (cf. MemGuard's per-period
// budgets), in one of two forms:
//   membw_tokens = T   at most T membw stages stream at once (MembwGate); msm_g2 outranks
//                      synthesis, so a running synthesis yields at its next chunk while an msm_g2
//                      waits for the budget;
//   membw_mb_per_s = R the membw stages' declared bytes are admitted at R MB/s on average (a byte
//                      bucket that may go into debt by one stage; up to `burst_mb` saved up).
// Other stages pass straight through. docs/schedulers.md says when to pick which.
#include <algorithm>
#include <deque>
#include <mutex>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"
#include "pacer/membw_gate.hpp"
#include "pacer/plugin.hpp"

namespace {

using namespace pacer;
using Clock = Timekeeper::Clock;

class TokenThrottle final : public Scheduler {
 public:
  explicit TokenThrottle(unsigned tokens) : gate_(tokens) {}
  void admit(const StageTicket& t, std::function<void()> start) override { gate_.admit(t, std::move(start)); }
  bool checkpoint(const StageTicket& t, std::function<void()> resume) override {
    return gate_.checkpoint(t, std::move(resume));
  }
  void finished(const StageTicket& t, const StageStats&) override { gate_.finished(t); }

 private:
  MembwGate gate_;
};

// A byte bucket filled at `rate` bytes/s up to `burst` bytes. A membw stage is admitted when the
// level is >= 0 and takes its declared bytes (the level may go negative: one stage of debt), so
// over any interval the admitted bytes are at most rate * interval + burst + one stage.
class RateThrottle final : public Scheduler {
 public:
  RateThrottle(Timekeeper& time, double bytes_per_s, double burst)
      : time_(time), rate_(bytes_per_s), burst_(burst), level_(burst), filled_at_(time.now()) {}

  void admit(const StageTicket& t, std::function<void()> start) override {
    if (t.cls != ResourceClass::membw) return start();
    std::unique_lock lock(mu_);
    queue_.push_back({t.bytes, std::move(start)});
    drain(lock);
  }
  bool checkpoint(const StageTicket&, std::function<void()>) override { return true; }
  void finished(const StageTicket&, const StageStats&) override {}

 private:
  struct Waiter {
    uint64_t bytes;
    std::function<void()> start;
  };

  void refill(Clock::time_point now) {
    const double dt = std::chrono::duration<double>(now - filled_at_).count();
    level_ = std::min(burst_, level_ + dt * rate_);
    filled_at_ = now;
  }

  // Admits what the bucket allows; arms one timer for the next waiter otherwise.
  void drain(std::unique_lock<std::mutex>& lock) {
    refill(time_.now());
    std::vector<std::function<void()>> go;
    while (!queue_.empty() && level_ >= 0) {
      level_ -= double(queue_.front().bytes);
      go.push_back(std::move(queue_.front().start));
      queue_.pop_front();
    }
    if (!queue_.empty() && !timer_armed_) {
      timer_armed_ = true;
      const auto wait = std::chrono::duration<double>(-level_ / rate_);
      time_.call_at(filled_at_ + std::chrono::ceil<std::chrono::nanoseconds>(wait), [this] {
        std::unique_lock again(mu_);
        timer_armed_ = false;
        drain(again);
      });
    }
    lock.unlock();
    for (auto& fn : go) fn();
  }

  Timekeeper& time_;
  const double rate_, burst_;
  std::mutex mu_;
  double level_;
  Clock::time_point filled_at_;
  bool timer_armed_ = false;
  std::deque<Waiter> queue_;
};

std::unique_ptr<Scheduler> make_throttled(const Params& params, HostServices& host) {
  const bool by_tokens = params.has("membw_tokens"), by_rate = params.has("membw_mb_per_s");
  if (by_tokens && by_rate)
    throw InputError(fmt::format("{}: give membw_tokens or membw_mb_per_s, not both (remove one)", params.where()));
  // burst_mb is a part of the rate budget; alone it would be reported as an unknown key.
  if (!by_rate)
    if (const toml::value* burst = params.find("burst_mb"))
      params.fail(*burst, "burst_mb",
                  "goes with membw_mb_per_s (MB of the rate budget saved up while idle): give membw_mb_per_s too, "
                  "or remove burst_mb");
  if (by_rate) {
    const double rate = params.get_double("membw_mb_per_s", 0);
    if (!(rate >= 1 && rate <= 1e7))
      throw InputError(fmt::format("{} membw_mb_per_s must be 1..10000000 (MB/s of declared membw bytes), got {}",
                                   params.where(), rate));
    const double burst = params.get_double("burst_mb", 0);
    if (!(burst >= 0 && burst <= 1e7))
      throw InputError(fmt::format("{} burst_mb must be 0..10000000 (MB saved up while idle), got {}",
                                   params.where(), burst));
    if (!host.time)
      throw FailedError("throttled scheduler with membw_mb_per_s needs the host's timers (HostServices::time)");
    if (host.log) host.log->debug("throttled scheduler: {} MB/s of membw bytes, burst {} MB", rate, burst);
    return std::make_unique<RateThrottle>(*host.time, rate * 1e6, burst * 1e6);
  }
  const int64_t tokens = params.get_int("membw_tokens", 1);
  if (tokens < 1 || tokens > 1024)
    throw InputError(fmt::format("{} membw_tokens must be 1..1024 (membw stages streaming at once), got {}",
                                 params.where(), tokens));
  if (host.log) host.log->debug("throttled scheduler: {} membw token{}", tokens, tokens == 1 ? "" : "s");
  return std::make_unique<TokenThrottle>(unsigned(tokens));
}

}  // namespace

PACER_PLUGIN(scheduler, "throttled", "0.1.0",
             "a budget of concurrent membw stages (membw_tokens) or of their declared bytes (membw_mb_per_s)",
             make_throttled)
