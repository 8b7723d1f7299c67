#include "pacer/runtime.hpp"

#include <limits>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/backend.hpp"
#include "pacer/error.hpp"
#include "pacer/thread_guard.hpp"
#include "pacer/witness/generator.hpp"

namespace pacer {

namespace asio = boost::asio;

namespace {

// <cache dir>/key-checks: the cache dir of [witness] cache_dir, else the user's (XDG_CACHE_HOME or
// ~/.cache); none (every load checks its key) when the user has no home to keep it in.
std::filesystem::path key_check_records(const Config& config, spdlog::logger& log) {
  if (!config.host.check_key_subgroups) return {};
  if (!config.witness.cache_dir.empty()) return config.witness.cache_dir / "key-checks";
  try {
    return witness::default_cache_dir() / "key-checks";
  } catch (const std::exception& e) {
    log.debug("no key-check records: {}", e.what());
    return {};
  }
}

}  // namespace

struct AsioTimekeeper::State {
  std::shared_ptr<spdlog::logger> log;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::mutex mu;
  bool stopped = false;
  std::thread thread;
};

AsioTimekeeper::AsioTimekeeper(std::shared_ptr<spdlog::logger> log) : state_(std::make_unique<State>()) {
  state_->log = std::move(log);
  try {
    state_->thread =
        std::thread([s = state_.get()] { run_io_until_stopped(s->io, s->log.get(), "the scheduler's timer thread"); });
  } catch (const std::system_error& e) {
    throw InputError(fmt::format("[host] threads: the system refused to start the scheduler's timer thread: {} "
                                 "(raise the limit on processes and threads: ulimit -u, the cgroup's pids.max)",
                                 e.code().message()));
  }
}

AsioTimekeeper::~AsioTimekeeper() { stop(); }

void AsioTimekeeper::stop() {
  {
    std::lock_guard lock(state_->mu);
    if (state_->stopped) return;
    state_->stopped = true;
  }
  state_->work.reset();
  state_->io.stop();
  if (state_->thread.joinable()) state_->thread.join();
}

Timekeeper::Clock::time_point AsioTimekeeper::now() const { return Clock::now(); }

void AsioTimekeeper::call_at(Clock::time_point when, std::function<void()> fn) {
  std::lock_guard lock(state_->mu);
  if (state_->stopped) return;
  auto timer = std::make_shared<asio::steady_timer>(state_->io, when);
  timer->async_wait([timer, fn = std::move(fn), s = state_.get()](const boost::system::error_code& ec) {
    if (!ec) call_and_log_exceptions(fn, s->log.get(), "a scheduler's timer callback");
  });
}

Runtime::Runtime(const Config& config, std::shared_ptr<spdlog::logger> log, RuntimeOptions options)
    : config_(config),
      log_(std::move(log)),
      pool_(config.host.threads),
      time_(log_),
      services_{log_, nullptr, nullptr, &pool_, &time_, config.pipeline.release},
      registry_(PluginRegistry::search_path_for(config_)) {
  pool_.set_log(log_.get());
  // The allocator first: the scheduler and the backend may allocate through it from their factories.
  allocator_ = registry_.create_allocator(config_.allocator.plugin, config_.allocator.params, services_);
  services_.allocator = allocator_.get();
  if (config_.staging)
    staging_ = registry_.create_allocator(config_.staging->plugin, config_.staging->params, services_);
  services_.staging = staging_ ? staging_.get() : allocator_.get();
  scheduler_ = registry_.create_scheduler(config_.scheduler.plugin, config_.scheduler.params, services_);
  backend_ = registry_.create_backend(config_.backend.plugin, config_.backend.params, services_);

  EngineOptions engine;
  engine.jobs_in_flight = options.jobs_in_flight ? options.jobs_in_flight : config_.pipeline.jobs_in_flight;
  prover_ = std::make_unique<Prover>(EngineParts{backend_, allocator_, staging_, scheduler_, &pool_, log_,
                                                config_.host.verify_proofs, config_.host.check_key_subgroups,
                                                key_check_records(config_, *log_)},
                                     engine);

  const BackendInfo info = backend_->info();
  log_->debug("engine: backend {} ({}; {} lane{}), allocator {}, scheduler {}, {} CPU thread{}, {} proof{} in flight "
              "within {} MiB; config {}",
              config_.backend.plugin, fmt::join(info.devices, ", "), info.lanes, info.lanes == 1 ? "" : "s",
              config_.allocator.plugin, config_.scheduler.plugin, pool_.size(), pool_.size() == 1 ? "" : "s",
              prover_->jobs_in_flight(),
              prover_->jobs_in_flight() == 1 ? "" : "s", prover_->memory_budget_bytes() >> 20, config_.source_name());
}

Runtime::~Runtime() {
  prover_.reset();  // drains every proof
  time_.stop();     // no scheduler timer fires once the scheduler is gone
}

}  // namespace pacer
