// Scheduler "greedy": every stage runs as soon as it asks, nothing is paced. It is the baseline:
// what the other schedulers' gains are measured against. It only counts, for the debug log.
#include <atomic>

#include <spdlog/spdlog.h>

#include "pacer/plugin.hpp"

namespace {

class GreedyScheduler final : public pacer::Scheduler {
 public:
  explicit GreedyScheduler(std::shared_ptr<spdlog::logger> log) : log_(std::move(log)) {}

  ~GreedyScheduler() override {
    if (log_)
      log_->debug("greedy scheduler: {} stages admitted, {} finished", admitted_.load(), finished_.load());
  }

  void admit(const pacer::StageTicket&, std::function<void()> start) override {
    admitted_.fetch_add(1, std::memory_order_relaxed);
    start();
  }

  bool checkpoint(const pacer::StageTicket&, std::function<void()>) override { return true; }

  void finished(const pacer::StageTicket&, const pacer::StageStats&) override {
    finished_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::atomic<uint64_t> admitted_{0}, finished_{0};
};

std::unique_ptr<pacer::Scheduler> make_greedy_scheduler(const pacer::Params&, pacer::HostServices& host) {
  return std::make_unique<GreedyScheduler>(host.log);
}

}  // namespace

PACER_PLUGIN(scheduler, "greedy", "0.1.0", "admits every stage at once (the unpaced baseline)", make_greedy_scheduler)
