#pragma once
// Everything a host builds from a config, in dependency order: logger, CPU pool, scheduler clock
// and timers, HostServices, plugin registry, then allocator (which HostServices then lends to the
// others), scheduler, backend, and the proof engine (Prover) over them. The `pacer` CLI and the
// coming daemon share it, so neither carries engine code of its own.
//
// Members are declared in that order, so they are destroyed backwards: the engine drains every
// proof first, then the timers stop (no scheduler callback can fire after), then the plugin
// objects die before the services and pool they were lent.
#include <memory>

#include "pacer/config.hpp"
#include "pacer/host_services.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/prover.hpp"
#include "pacer/scheduler.hpp"
#include "pacer/thread_pool.hpp"

namespace spdlog { class logger; }

namespace pacer {

// Real time for schedulers: steady_clock, and timers on one Asio thread of their own.
class AsioTimekeeper final : public Timekeeper {
 public:
  // A timer's callback that throws is logged to `log` (null: stderr); the timers go on.
  explicit AsioTimekeeper(std::shared_ptr<spdlog::logger> log = nullptr);
  ~AsioTimekeeper() override;  // stop()
  Clock::time_point now() const override;
  void call_at(Clock::time_point when, std::function<void()> fn) override;
  // Drops the timers still pending and joins the thread; later call_at calls do nothing.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct RuntimeOptions {
  unsigned jobs_in_flight = 0;  // 0: the config's [pipeline] jobs_in_flight (bench --jobs sets it)
};

class Runtime {
 public:
  Runtime(const Config& config, std::shared_ptr<spdlog::logger> log, RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Config& config() const { return config_; }
  const std::shared_ptr<spdlog::logger>& log() const { return log_; }
  Prover& prover() { return *prover_; }
  const PluginRegistry& registry() const { return registry_; }
  ThreadPool& pool() { return pool_; }
  // What a witness is read into (Usage::witness): [staging] where configured, as the backend copies
  // the witness to its device, else the [allocator].
  Allocator* witness_allocator() { return services_.staging; }

 private:
  Config config_;
  std::shared_ptr<spdlog::logger> log_;
  ThreadPool pool_;
  AsioTimekeeper time_;
  HostServices services_;  // plugins keep a reference: Runtime never moves
  PluginRegistry registry_;
  std::shared_ptr<Allocator> allocator_;
  std::shared_ptr<Allocator> staging_;  // [staging], or null: the allocator serves staging too
  std::shared_ptr<Scheduler> scheduler_;
  std::shared_ptr<Backend> backend_;
  std::unique_ptr<Prover> prover_;
};

}  // namespace pacer
