#pragma once
// What the subcommands of `pacer` share: the subcommand shape, --config handling, and the Engine
// (pool, services, plugins, prover) built from a config. One file per subcommand registers it
// with add_<name>_command(); main.cpp lists them.
#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "pacer/config.hpp"
#include "pacer/files.hpp"
#include "pacer/host_services.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/prover.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::host {

// A registered subcommand: its CLI11 node, and what to run when it was the one parsed. run()
// returns the exit code; it may throw pacer::Error (main maps it to "pacer: error: ..." + code).
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Subcommand add_plugins_command(CLI::App& root);
Subcommand add_inspect_command(CLI::App& root);
Subcommand add_prove_command(CLI::App& root);
Subcommand add_setup_command(CLI::App& root);
Subcommand add_gen_circuit_command(CLI::App& root);
Subcommand add_bench_command(CLI::App& root);
Subcommand add_verify_command(CLI::App& root);

// Adds the --config FILE option every subcommand takes; `path` stays empty without it.
void add_config_option(CLI::App& command, std::string& path);

// The config at `path`, or the built-in defaults (cpu / plain / greedy) when `path` is empty.
// Only parsed: a subcommand validates it whole by building its Engine, as `prove` does.
Config load_config_or_defaults(const std::string& path);

// {"--config", path} when a config file was given, for check_outputs(): no output may replace it.
std::vector<NamedFile> config_input(const std::string& path);

class Engine;
// pacer::check_outputs with the files this process runs from added to the inputs: the pacer
// executable, the framework library and every plugin library on the search path (an output must
// replace none of them either).
void check_outputs(const Engine& engine, std::vector<NamedFile> inputs, const std::vector<NamedFile>& outputs);

// Writes a small text output through a temporary file renamed into place (writers.hpp).
void write_text_file(const std::string& path, const std::string& text);

// Everything a subcommand builds from a config, in dependency order: logger, CPU pool,
// HostServices, plugin registry, then allocator (which HostServices then lends to the others),
// scheduler, backend, and the Prover over them. Members are declared in that order, so they are
// destroyed backwards: plugin objects die before the services and pool they were lent.
// Every subcommand builds one, so that every subcommand validates a config the same way: plugins
// that exist and accept their params, and a pool the system lets it start.
class Engine {
 public:
  Engine(const Config& config, std::shared_ptr<spdlog::logger> log);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

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
  HostServices services_;  // plugins keep a reference: Engine never moves
  PluginRegistry registry_;
  std::shared_ptr<Allocator> allocator_;
  std::shared_ptr<Allocator> staging_;  // [staging], or null: the allocator serves staging too
  std::shared_ptr<Scheduler> scheduler_;
  std::shared_ptr<Backend> backend_;
  std::unique_ptr<Prover> prover_;
};

// "1.23 s", "45 ms", "870 us": durations for people.
std::string human_duration(std::chrono::nanoseconds d);

}  // namespace pacer::host
