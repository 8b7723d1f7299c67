#include "generator_options.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/error.hpp"

namespace pacer::host {

void add_generator_options(CLI::App& command, GeneratorCliOptions& options) {
  auto* wasm = command.add_option("--wasm", options.wasm,
                                  "the circuit's witness generator as circom --wasm writes it (<circuit>_js/<circuit>.wasm); "
                                  "compiled to native code on first use and cached");
  auto* cpp = command.add_option("--circuit-cpp", options.circuit_cpp,
                                 "or the folder circom --c writes (<circuit>_cpp/), compiled likewise");
  wasm->excludes(cpp);
  command.add_option("--input", options.inputs, "input.json (as snarkjs reads it); repeat for several");
  command.add_option("--cache-dir", options.cache_dir,
                     "where compiled generators are kept (default: [witness] cache_dir of the config, else "
                     "$XDG_CACHE_HOME/pacer, else ~/.cache/pacer)");
  command.add_flag("--strict-inputs", options.strict_inputs,
                   "refuse input values outside [0, p) instead of reducing them mod p as snarkjs does");
}

std::shared_ptr<witness::Generator> open_generator(const GeneratorCliOptions& options, const Config& config,
                                                   const std::shared_ptr<spdlog::logger>& log) {
  witness::GeneratorSource source;
  if (!options.wasm.empty()) source = {witness::GeneratorKind::wasm, options.wasm};
  else source = {witness::GeneratorKind::circom_cpp, options.circuit_cpp};
  witness::GeneratorOptions generator_options;
  generator_options.log = log;
  if (!options.cache_dir.empty()) {
    generator_options.cache_dir = options.cache_dir;
    generator_options.cache_dir_hint = "--cache-dir DIR";
  } else if (!config.witness.cache_dir.empty()) {
    generator_options.cache_dir = config.witness.cache_dir;
    generator_options.cache_dir_hint = fmt::format("[witness] cache_dir in {} (or --cache-dir DIR)", config.source_name());
  } else {
    generator_options.cache_dir_hint = "--cache-dir DIR, [witness] cache_dir in the config, or XDG_CACHE_HOME";
  }
  return witness::Generator::open(source, generator_options);
}

std::vector<std::shared_ptr<const witness::CircuitInputs>> read_inputs(const GeneratorCliOptions& options,
                                                                       spdlog::logger& log) {
  std::vector<std::shared_ptr<const witness::CircuitInputs>> out;
  for (const std::string& path : options.inputs)
    out.push_back(std::make_shared<const witness::CircuitInputs>(
        witness::read_input_json(path, [&](const std::string& line) { log.warn("{}", line); })));
  return out;
}

void add_generator_inputs(const GeneratorCliOptions& options, std::vector<NamedFile>& inputs) {
  if (!options.wasm.empty()) inputs.push_back({"--wasm", options.wasm});
  for (const auto& input : options.inputs) inputs.push_back({"--input", input});
}

void check_generator_matches(const witness::Generator& generator, const ProvingKey& key) {
  if (generator.curve() != key.curve || generator.witness_size() != key.n_vars)
    throw InputError(fmt::format("{} computes witnesses of {} wires on {}, but key {} is for {} wires on {}: is it the "
                                 "same circuit?",
                                 generator.source().describe(), generator.witness_size(),
                                 curve_json_name(generator.curve()), key.path, key.n_vars, curve_json_name(key.curve)));
}

WitnessSource generator_witness_source(std::shared_ptr<const witness::Generator> generator,
                                       std::shared_ptr<const witness::CircuitInputs> inputs, Allocator* allocator,
                                       bool strict_inputs) {
  return [generator = std::move(generator), inputs = std::move(inputs), allocator, strict_inputs] {
    return std::make_shared<const Witness>(generator->compute(*inputs, allocator, {strict_inputs}));
  };
}

}  // namespace pacer::host
