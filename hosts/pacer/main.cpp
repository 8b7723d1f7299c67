// `pacer`: the reference host. Each subcommand lives in its own cmd_<name>.cpp and registers
// itself through add_<name>_command() (common.hpp); this file only parses and maps errors to exit
// codes: 0 ok, 1 a failed proof or check, 2 bad usage or bad input, always with a one-line reason
// on stderr and never a stack trace.
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"

namespace {

// SIGINT, SIGTERM, SIGHUP: the hidden temporary files of outputs being written (setup and
// gen-circuit write gigabytes) are removed, then the signal ends the process as it would have.
// `pacer serve` handles these signals itself, once it listens.
void remove_temporary_files_and_die(int signal) {
  pacer::remove_temporary_files_now();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void remove_temporary_files_on_signals() {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now {};
    if (::sigaction(signal, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) continue;  // nohup: stay ignored
    struct sigaction action {};
    action.sa_handler = remove_temporary_files_and_die;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
}

int run(int argc, char** argv) {
  CLI::App app{"pacer: a plugin-based Groth16 prover (snarkjs-compatible zkey/wtns in, proof.json out)", "pacer"};
  app.set_version_flag("--version", PACER_VERSION);
  app.require_subcommand(1);
  app.footer("Every subcommand takes --help, and all but report (which reads a trace) take --config FILE. "
             "Exit status: 0 ok, 1 a proof or check failed, 2 bad usage or bad input.");

  const std::vector<pacer::host::Subcommand> commands = {
      pacer::host::add_plugins_command(app),
      pacer::host::add_inspect_command(app),
      pacer::host::add_prove_command(app),
      pacer::host::add_witness_command(app),
      pacer::host::add_setup_command(app),
      pacer::host::add_gen_circuit_command(app),
      pacer::host::add_bench_command(app),
      pacer::host::add_verify_command(app),
      pacer::host::add_report_command(app),
      pacer::host::add_serve_command(app),
      pacer::host::add_worker_command(app),
      pacer::host::add_queue_command(app),
  };

  // CLI11 would say only "A subcommand is required" for a misspelt one; name it and the choices.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const auto& command : commands) {
      found |= command.app->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + command.app->get_name();
    }
    if (!found) {
      fmt::print(stderr, "pacer: error: unknown subcommand '{}' (known: {}; see pacer --help)\n", argv[1], known);
      return static_cast<int>(pacer::ExitCode::bad_input);
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // --help: usage on stdout, exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Bad usage gets the same one-line shape as every other error.
    fmt::print(stderr, "pacer: error: {} (see pacer --help)\n", e.what());
    return static_cast<int>(pacer::ExitCode::bad_input);
  }

  for (const auto& command : commands)
    if (command.app->parsed()) return command.run();
  return static_cast<int>(pacer::ExitCode::bad_input);  // unreachable: require_subcommand(1)
}

}  // namespace

int main(int argc, char** argv) {
  remove_temporary_files_on_signals();
  try {
    return run(argc, argv);
  } catch (const pacer::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "pacer: error: {}\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    fmt::print(stderr,
               "pacer: error: out of memory: the system refused an allocation (free memory, lower [host] threads "
               "or --jobs, or raise the memory limit)\n");
    return static_cast<int>(pacer::ExitCode::failed);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "pacer: error: {}\n", e.what());
    return static_cast<int>(pacer::ExitCode::failed);
  } catch (...) {
    std::fflush(stdout);
    fmt::print(stderr, "pacer: error: unknown exception\n");
    return static_cast<int>(pacer::ExitCode::failed);
  }
}
