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
#include "pacer/runtime.hpp"
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
Subcommand add_report_command(CLI::App& root);
Subcommand add_serve_command(CLI::App& root);
Subcommand add_worker_command(CLI::App& root);
Subcommand add_queue_command(CLI::App& root);
Subcommand add_witness_command(CLI::App& root);

// Adds the --config FILE option every subcommand takes; `path` stays empty without it.
// The key a command proves with: --zkey FILE, or --key ID naming a [[keys]] entry of the config;
// one of them, never both.
struct KeyChoice {
  std::string zkey, id;
  // Adds --zkey and --key to `command`, excluding each other.
  void add_options(CLI::App& command);
  bool given() const { return !zkey.empty() || !id.empty(); }
  // The .zkey file: --zkey as given, or the zkey of the entry --key names. Neither given, or no
  // such entry: InputError naming `command` and the ids the config declares.
  std::string path(const Config& config, std::string_view command) const;
  // How an error names it: "--zkey" or "--key ID".
  std::string label() const { return id.empty() ? "--zkey" : "--key " + id; }
};

void add_config_option(CLI::App& command, std::string& path);

// The config at `path`, or the built-in defaults (cpu / plain / greedy) when `path` is empty.
// Only parsed: a subcommand validates it whole by building its Engine, as `prove` does.
Config load_config_or_defaults(const std::string& path);

// {"--config", path} when a config file was given, for check_outputs(): no output may replace it.
std::vector<NamedFile> config_input(const std::string& path);

// Everything a subcommand builds from a config (pacer/runtime.hpp): plugins, pool, engine. Every
// subcommand builds one, so that every subcommand validates a config the same way: plugins that
// exist and accept their params, and a pool the system lets it start.
using Engine = pacer::Runtime;

// pacer::check_outputs with the files this process runs from added to the inputs: the pacer
// executable, the framework library and every plugin library on the search path (an output must
// replace none of them either).
void check_outputs(const Engine& engine, std::vector<NamedFile> inputs, const std::vector<NamedFile>& outputs);

// Writes a small text output through a temporary file renamed into place (writers.hpp).
void write_text_file(const std::string& path, const std::string& text);

// "1.23 s", "45 ms", "870 us": durations for people.
std::string human_duration(std::chrono::nanoseconds d);

}  // namespace pacer::host
