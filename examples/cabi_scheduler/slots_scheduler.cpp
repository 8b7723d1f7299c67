// An out-of-tree scheduler plugin "slots", in C++ on the C ABI: it includes pacer/c_plugin.hpp
// (header-only) and links nothing of Pacer's, so any C++20 compiler and standard library build it:
//   c++ -std=c++20 -O2 -shared -fPIC -fvisibility=hidden -I<pacer prefix>/include
//       -o libpacer_slots_scheduler.so slots_scheduler.cpp        (one line)
// then select it in a config: [scheduler] plugin = "slots".
//
// At most `membw_slots` memory-bandwidth-heavy stages run at once; the others wait in order of
// priority, then arrival. With `yield_us` > 0, a running membw stage that reaches a checkpoint
// while another one waits pauses for that long (on the host's timer), so the waiting one gets a
// turn at the bandwidth sooner. Other stages run at once.
//
// params:
//   membw_slots (integer >= 1, default 1)
//   yield_us    (integer >= 0, default 0)
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include <pacer/c_plugin.hpp>

namespace {

class SlotsScheduler final : public pacer::Scheduler {
 public:
  SlotsScheduler(pacer::cabi::Host& host, int64_t slots, int64_t yield_us)
      : host_(host), slots_(slots), yield_(std::chrono::microseconds(yield_us)) {}

  ~SlotsScheduler() override {
    host_.debug("slots scheduler: " + std::to_string(waited_) + " of " + std::to_string(admitted_) +
                " membw stages waited, " + std::to_string(yields_) + " yields");
  }

  void admit(const pacer::StageTicket& ticket, std::function<void()> start) override {
    if (ticket.cls != pacer::ResourceClass::membw) return start();
    {
      std::lock_guard lock(mu_);
      ++admitted_;
      if (running_ >= slots_) {
        ++waited_;
        auto at = waiting_.end();  // behind every stage of the same or higher priority
        while (at != waiting_.begin() && std::prev(at)->priority < ticket.priority) --at;
        waiting_.insert(at, Waiting{ticket.priority, std::move(start)});
        return;
      }
      ++running_;
    }
    start();  // outside the lock: it may run the stage's first steps at once
  }

  bool checkpoint(const pacer::StageTicket& ticket, std::function<void()> resume) override {
    if (ticket.cls != pacer::ResourceClass::membw || yield_.count() == 0 || !host_.time()) return true;
    {
      std::lock_guard lock(mu_);
      if (waiting_.empty()) return true;
      ++yields_;
    }
    host_.time()->call_at(host_.time()->now() + yield_, std::move(resume));
    return false;
  }

  void finished(const pacer::StageTicket& ticket, const pacer::StageStats&) override {
    if (ticket.cls != pacer::ResourceClass::membw) return;
    std::function<void()> next;
    {
      std::lock_guard lock(mu_);
      if (waiting_.empty()) {
        --running_;
        return;
      }
      next = std::move(waiting_.front().start);  // the slot passes straight to the next one
      waiting_.pop_front();
    }
    next();
  }

 private:
  struct Waiting {
    int priority;
    std::function<void()> start;
  };
  pacer::cabi::Host& host_;
  const int64_t slots_;
  const std::chrono::microseconds yield_;
  std::mutex mu_;
  int64_t running_ = 0;
  std::deque<Waiting> waiting_;
  uint64_t admitted_ = 0, waited_ = 0, yields_ = 0;
};

std::unique_ptr<pacer::Scheduler> make_slots(const pacer::cabi::ParamsView& params, pacer::cabi::Host& host) {
  const int64_t slots = params.get_int("membw_slots", 1);
  const int64_t yield_us = params.get_int("yield_us", 0);
  if (slots < 1) params.fail("membw_slots", "must be at least 1");
  if (yield_us < 0) params.fail("yield_us", "must be >= 0");
  return std::make_unique<SlotsScheduler>(host, slots, yield_us);
}

}  // namespace

PACER_C_PLUGIN(scheduler, "slots", "1.0.0", "example out-of-tree scheduler on the C ABI: N membw slots",
               make_slots)
