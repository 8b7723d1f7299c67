#pragma once
// What `pacer witness`, `prove` and `bench` share to run a circuit's witness generator on
// input.json files (docs/fullprove.md): the options, opening the generator with the cache dir
// the user chose, and the WitnessSource that runs it as a proof's witness stage.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pacer/config.hpp"
#include "pacer/files.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/prover.hpp"
#include "pacer/witness/generator.hpp"

namespace pacer::host {

struct GeneratorCliOptions {
  std::string wasm;         // --wasm circuit.wasm
  std::string circuit_cpp;  // --circuit-cpp circuit_cpp/
  std::vector<std::string> inputs;  // --input input.json (several: several witnesses / proofs)
  std::string cache_dir;    // --cache-dir DIR
  bool strict_inputs = false;

  bool given() const { return !wasm.empty() || !circuit_cpp.empty(); }
};

// --wasm, --circuit-cpp (one or the other), --input (repeatable), --cache-dir, --strict-inputs.
void add_generator_options(CLI::App& command, GeneratorCliOptions& options);

// The generator, from the cache or compiled now; the cache dir is --cache-dir, else the config's
// [witness] cache_dir, else the default.
std::shared_ptr<witness::Generator> open_generator(const GeneratorCliOptions& options, const Config& config,
                                                   const std::shared_ptr<spdlog::logger>& log);

// Every --input, read and checked before any work (a malformed one fails the command first).
std::vector<std::shared_ptr<const witness::CircuitInputs>> read_inputs(const GeneratorCliOptions& options,
                                                                       spdlog::logger& log);

// The generator's files and the inputs, as check_outputs() wants its inputs named.
void add_generator_inputs(const GeneratorCliOptions& options, std::vector<NamedFile>& inputs);

// The generator computes witnesses for this key: same curve, as many wires as the key's nVars
// (InputError naming both otherwise, before any proof starts).
void check_generator_matches(const witness::Generator& generator, const ProvingKey& key);

// A proof's witness, computed in its `witness` stage (set ProveOptions::witness_stage).
WitnessSource generator_witness_source(std::shared_ptr<const witness::Generator> generator,
                                       std::shared_ptr<const witness::CircuitInputs> inputs, Allocator* allocator,
                                       bool strict_inputs);

}  // namespace pacer::host
