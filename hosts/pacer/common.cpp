#include "common.hpp"

#include <dlfcn.h>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/backend.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

void add_config_option(CLI::App& command, std::string& path) {
  command.add_option("--config", path,
                     "TOML config selecting backend, allocator, scheduler (default: cpu, pooled, greedy); "
                     "see examples/configs/default.toml");
}

Config load_config_or_defaults(const std::string& path) {
  return path.empty() ? default_config() : load_config(path);
}

std::vector<NamedFile> config_input(const std::string& path) {
  if (path.empty()) return {};
  return {{"--config", path}};
}

void check_outputs(const Engine& engine, std::vector<NamedFile> inputs, const std::vector<NamedFile>& outputs) {
  inputs.push_back({"(the pacer executable)", "/proc/self/exe"});
  Dl_info framework{};
  if (::dladdr(reinterpret_cast<void*>(&default_config), &framework) != 0 && framework.dli_fname)
    inputs.push_back({"(the framework library)", framework.dli_fname});
  for (const auto& candidate : engine.registry().candidates())
    inputs.push_back({"(a plugin library)", candidate.file.string()});
  pacer::check_outputs(inputs, outputs);
}

void write_text_file(const std::string& path, const std::string& text) {
  FileWriter out(path, std::max<size_t>(text.size(), 1));
  out.write(text.data(), text.size());
  out.commit();
}

Engine::Engine(const Config& config, std::shared_ptr<spdlog::logger> log)
    : config_(config),
      log_(std::move(log)),
      pool_(config.host.threads),
      services_{log_, nullptr, nullptr, &pool_, config.pipeline.release},
      registry_(PluginRegistry::search_path_for(config_)) {
  // The allocator first: the scheduler and the backend may allocate through it from their factories.
  allocator_ = registry_.create_allocator(config_.allocator.plugin, config_.allocator.params, services_);
  services_.allocator = allocator_.get();
  if (config_.staging)
    staging_ = registry_.create_allocator(config_.staging->plugin, config_.staging->params, services_);
  services_.staging = staging_ ? staging_.get() : allocator_.get();
  scheduler_ = registry_.create_scheduler(config_.scheduler.plugin, config_.scheduler.params, services_);
  backend_ = registry_.create_backend(config_.backend.plugin, config_.backend.params, services_);

  const BackendInfo info = backend_->info();
  log_->debug("engine: backend {} ({}; {} lane{}), allocator {}, scheduler {}, {} CPU threads; config {}",
              config_.backend.plugin, fmt::join(info.devices, ", "), info.lanes, info.lanes == 1 ? "" : "s",
              config_.allocator.plugin, config_.scheduler.plugin, pool_.size(), config_.source_name());

  prover_ = std::make_unique<Prover>(EngineParts{backend_, allocator_, staging_, scheduler_, &pool_, log_,
                                                           config_.host.verify_proofs, config_.host.check_key_subgroups});
}

std::string human_duration(std::chrono::nanoseconds d) {
  const double ns = static_cast<double>(d.count());
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.0f} us", ns / 1e3);
}

}  // namespace pacer::host
