// `pacer`: the reference host. Each subcommand lives in its own cmd_<name>.cpp and registers
// itself through add_<name>_command() (common.hpp); this file only parses and maps errors to exit
// codes: 0 ok, 1 a failed proof or check, 2 bad usage or bad input, always with a one-line reason
// on stderr and never a stack trace.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/error.hpp"

namespace {

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
