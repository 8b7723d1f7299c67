// `pacer witness`: input.json -> witness.wtns with the circuit's witness generator (circom's
// .wasm or --c folder) compiled to native code; the same bytes `snarkjs wtns calculate` writes.
// --compile-only builds the generator into the cache and stops (for machines without compilers).
#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "generator_options.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  GeneratorCliOptions generator;
  std::vector<std::string> outputs;
  bool compile_only = false;
};

int run_witness(const Options& options) {
  if (!options.generator.given())
    throw InputError("witness: give the circuit's witness generator: --wasm circuit.wasm or --circuit-cpp circuit_cpp/");
  if (options.compile_only && (!options.generator.inputs.empty() || !options.outputs.empty()))
    throw InputError("witness: --compile-only builds the generator only; leave out --input and --out");
  if (!options.compile_only && options.generator.inputs.empty())
    throw InputError("witness: give --input input.json and --out witness.wtns (or --compile-only)");
  if (!options.compile_only && options.outputs.size() != options.generator.inputs.size())
    throw InputError(fmt::format("witness: {} --input but {} --out: give one --out per --input",
                                 options.generator.inputs.size(), options.outputs.size()));
  // Only the config's [witness] and [host] log_level matter here: no engine is built, so that a
  // witness costs no plugin loading or thread pool.
  const Config config = load_config_or_defaults(options.config);
  const auto log = make_logger(config.host.log_level);

  std::vector<NamedFile> inputs = config_input(options.config), outputs;
  add_generator_inputs(options.generator, inputs);
  for (const auto& out : options.outputs) outputs.push_back({"--out", out});
  pacer::check_outputs(inputs, outputs);

  const auto circuit_inputs = read_inputs(options.generator, *log);
  const auto generator = open_generator(options.generator, config, log);
  if (options.compile_only) {
    log->info("{}: {} on {}, {} wires, {} input values; library {}", generator->source().describe(),
              "witness generator", curve_json_name(generator->curve()), generator->witness_size(),
              generator->input_count(), generator->library().string());
    return 0;
  }
  for (size_t i = 0; i < circuit_inputs.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Witness w = generator->compute(*circuit_inputs[i], nullptr, {options.generator.strict_inputs});
    const auto computed = std::chrono::steady_clock::now();
    write_wtns(options.outputs[i], w.curve, {w.values.data(), w.values.size()});
    log->debug("{} -> {}: {} values in {}", circuit_inputs[i]->source, options.outputs[i], w.values.size(),
               human_duration(computed - start));
  }
  return 0;
}

}  // namespace

Subcommand add_witness_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "witness",
      "Compute a witness from input.json with the circuit's witness generator (circom's .wasm or its\n"
      "--c C++ folder), compiled to native code on first use and cached: the same .wtns bytes as\n"
      "`snarkjs wtns calculate`. --compile-only prepares the cache (for machines without compilers).");
  add_generator_options(*cmd, options->generator);
  cmd->add_option("--out", options->outputs, "where to write the witness (.wtns); one per --input");
  cmd->add_flag("--compile-only", options->compile_only,
                "only compile the generator into the cache (and check that it loads)");
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_witness(*options); }};
}

}  // namespace pacer::host
