// `pacer prove`: load a key once, prove every --witness (or every --input through the circuit's
// witness generator) with it, write proof/public JSON files. Also rapidsnark's positional form:
// `pacer prove circuit.zkey witness.wtns proof.json public.json`.
#include <chrono>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "generator_options.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string config;
  KeyChoice key;
  std::vector<std::string> witnesses;
  GeneratorCliOptions generator;  // --wasm/--circuit-cpp + --input instead of --witness
  std::string witness_out;        // --witness-out: the computed witness, as a .wtns
  std::vector<std::string> positional;  // rapidsnark's form: zkey witness proof public
  std::string proof = "proof.json";
  std::string public_inputs = "public.json";
};

constexpr const char* kRapidsnarkForm = "pacer prove circuit.zkey witness.wtns proof.json public.json";

// rapidsnark's positional form, mapped onto the options; every other shape is refused here.
Options with_positional(Options options) {
  if (options.positional.empty()) return options;
  if (options.positional.size() != 4)
    throw InputError(fmt::format("prove: {} positional argument{}; the positional form is rapidsnark's: {}",
                                 options.positional.size(), options.positional.size() == 1 ? "" : "s",
                                 kRapidsnarkForm));
  if (options.key.given() || !options.witnesses.empty() || options.generator.given())
    throw InputError(fmt::format("prove: give the files either as options or positionally ({}), not both",
                                 kRapidsnarkForm));
  options.key.zkey = options.positional[0];
  options.witnesses = {options.positional[1]};
  options.proof = options.positional[2];
  options.public_inputs = options.positional[3];
  return options;
}

// The generator of --key's [[keys]] entry, when the command gives inputs but no generator.
GeneratorCliOptions generator_of_key(GeneratorCliOptions generator, const Options& options, const Config& config) {
  if (generator.given() || generator.inputs.empty() || options.key.id.empty()) return generator;
  if (const KeyEntry* entry = config.find_key(options.key.id)) {
    generator.wasm = entry->wasm.string();
    generator.circuit_cpp = entry->circuit_cpp.string();
  }
  return generator;
}

// With several witnesses, output i goes to <stem>-<i><ext>: proof.json -> proof-0.json, proof-1.json.
fs::path output_path(const std::string& base, size_t index, size_t count) {
  if (count == 1) return base;
  const fs::path p(base);
  return p.parent_path() / fmt::format("{}-{}{}", p.stem().string(), index, p.extension().string());
}

int run_prove(const Options& given) {
  const Options options = with_positional(given);
  Config config = load_config_or_defaults(options.config);
  const std::string zkey = options.key.path(config, "prove");
  const GeneratorCliOptions generator_options = generator_of_key(options.generator, options, config);
  const bool from_inputs = !generator_options.inputs.empty();
  if (from_inputs == !options.witnesses.empty())
    throw InputError("prove: give either --witness W.wtns or --input input.json (with --wasm or --circuit-cpp, or a "
                     "--key whose [[keys]] entry names the generator)");
  if (from_inputs && !generator_options.given())
    throw InputError("prove: --input needs the circuit's witness generator: --wasm circuit.wasm or --circuit-cpp DIR");
  if (!from_inputs && generator_options.given())
    throw InputError("prove: --wasm and --circuit-cpp compute witnesses from --input input.json; give --input");
  if (!from_inputs && !options.witness_out.empty())
    throw InputError("prove: --witness-out writes the witness computed from --input; with --witness it has none to write");
  const size_t count = from_inputs ? generator_options.inputs.size() : options.witnesses.size();
  // One proof has nothing to reuse: the default pooled allocator's kept, pre-faulted blocks would
  // only add to its peak memory (2^18: 235 MB against 219 MB with plain pages, and slower).
  const bool one_shot_plain = !config.allocator_given && count == 1;
  if (one_shot_plain) config.allocator = PluginChoice{"plain", Params(toml::table{}, "[allocator.params]")};
  // Before any work: no output may be an input, a device or another output (checked once the
  // engine knows its plugin files).
  std::vector<NamedFile> inputs = config_input(options.config), outputs;
  inputs.push_back({options.key.label(), zkey});
  for (const auto& w : options.witnesses) inputs.push_back({"--witness", w});
  add_generator_inputs(generator_options, inputs);
  for (size_t i = 0; i < count; ++i) {
    outputs.push_back({"--proof", output_path(options.proof, i, count).string()});
    outputs.push_back({"--public", output_path(options.public_inputs, i, count).string()});
  }
  for (size_t i = 0; i < count && !options.witness_out.empty(); ++i)
    outputs.push_back({"--witness-out", output_path(options.witness_out, i, count).string()});
  Engine engine(config, make_logger(config.host.log_level));
  check_outputs(engine, inputs, outputs);
  const auto& log = engine.log();
  if (one_shot_plain) log->debug("one proof and no [allocator] in the config: plain pages instead of the pooled default");
  // input.json files first (a malformed one fails before a generator compiles), then the generator.
  const auto circuit_inputs = read_inputs(generator_options, *log);
  const auto generator = from_inputs ? open_generator(generator_options, config, log) : nullptr;

  const auto key_start = std::chrono::steady_clock::now();
  const std::shared_ptr<ResidentKey> key = engine.prover().load_key(zkey);
  const ProvingKey& pk = key->key();
  log->info("key {}: {}, {} wires, {} public, domain {}, resident in {}", zkey, curve_json_name(pk.curve), pk.n_vars,
            pk.n_public, pk.domain_size, human_duration(std::chrono::steady_clock::now() - key_start));
  const MemoryNeeds needs = engine.prover().parts().backend->memory_needs(*key);
  log->debug("key {}: the backend holds {} MiB of it on the host and {} MiB on each device; a proof adds {} MiB of "
             "backend scratch on the host and {} MiB on its device, {} MiB in all for admission",
             zkey, needs.host_per_key >> 20, needs.device_per_key >> 20, needs.host_per_proof >> 20,
             needs.device_per_proof >> 20, engine.prover().proof_bytes(*key) >> 20);
  // Every witness is read and matched to the key first, so a bad one fails before any proof is
  // written; each is read again when its turn comes, so that a long batch never holds them all.
  for (const auto& path : options.witnesses) check_witness_matches(pk, read_wtns(path, engine.witness_allocator()));
  if (generator) check_generator_matches(*generator, pk);

  ProveOptions prove_options;  // blinded: r and s fresh from the OS for every proof
  prove_options.witness_stage = from_inputs;  // the generator runs as each proof's `witness` stage
  // Every proof goes to the engine at once; [pipeline] jobs_in_flight of them run together, and
  // each reads (or computes) its witness in its own stage, so a long batch never holds them all.
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<ProofOutput>> proofs;
  // --witness-out: each computed witness is kept until its proof is written beside it.
  std::vector<std::shared_ptr<const Witness>> computed(options.witness_out.empty() ? 0 : count);
  for (size_t i = 0; i < count; ++i) {
    WitnessSource source;
    if (from_inputs) {
      source = generator_witness_source(generator, circuit_inputs[i], engine.witness_allocator(),
                                        generator_options.strict_inputs);
      if (!computed.empty())
        source = [inner = std::move(source), slot = &computed[i]] {
          auto w = inner();
          *slot = w;
          return w;
        };
    } else {
      source = [path = options.witnesses[i], allocator = engine.witness_allocator()] {
        return std::make_shared<const Witness>(read_wtns(path, allocator));
      };
    }
    proofs.push_back(engine.prover().submit(key, std::move(source), prove_options));
  }
  // One-shot: the key's synthesis data can go once these have synthesised (lower peak memory).
  engine.prover().last_submission(key);
  const auto input_name = [&](size_t i) { return from_inputs ? generator_options.inputs[i] : options.witnesses[i]; };
  // Outputs in order as proofs end; a failed proof fails the command, after the others are written.
  std::exception_ptr first_error;
  for (size_t i = 0; i < count; ++i) {
    ProofOutput out;
    try {
      out = proofs[i].get();
    } catch (const std::exception& e) {
      // The first failure is the command's one error line; later ones are logged.
      if (!first_error) first_error = std::current_exception();
      else log->error("proof {}/{}: {}: {}", i + 1, count, input_name(i), e.what());
      continue;
    }
    const std::string& proof_path = outputs[2 * i].path;
    const std::string& public_path = outputs[2 * i + 1].path;
    // Both complete, then in place together: both or neither, never a proof beside another's public signals.
    FileWriter proof_file(proof_path, out.proof_json.size() + 1), public_file(public_path, out.public_json.size() + 1);
    proof_file.write(out.proof_json.data(), out.proof_json.size());
    public_file.write(out.public_json.data(), out.public_json.size());
    proof_file.close();
    public_file.close();
    if (!computed.empty() && computed[i]) {
      const std::string witness_path = output_path(options.witness_out, i, count).string();
      write_wtns(witness_path, computed[i]->curve, {computed[i]->values.data(), computed[i]->values.size()});
      computed[i].reset();
    }
    commit_together({&proof_file, &public_file});

    std::string stages;
    for (int s = 0; s < kStageCount; ++s) {
      if (out.stage_time[s].count() == 0) continue;
      stages += fmt::format("{}{} {}", stages.empty() ? "" : ", ", stage_name(static_cast<Stage>(s)),
                            human_duration(out.stage_time[s]));
    }
    log->info("proof {}/{}: {} -> {}, {} in {} ({}; {} since the first was queued)", i + 1, count, input_name(i),
              proof_path, public_path, human_duration(out.ended_at - out.started_at), stages,
              human_duration(out.ended_at - start));
  }
  if (first_error) std::rethrow_exception(first_error);
  return 0;
}

}  // namespace

Subcommand add_prove_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "prove",
      "Prove witnesses with a Groth16 key (snarkjs .zkey/.wtns in, snarkjs proof.json/public.json out),\n"
      "or prove input.json files (--input) with the circuit's witness generator (--wasm or --circuit-cpp),\n"
      "as snarkjs groth16 fullprove does. The key is loaded once and reused for every --witness/--input.\n"
      "With several the outputs are numbered in the order given: proof-0.json/public-0.json, ...\n"
      "(the number goes before the extension of --proof/--public). rapidsnark's form works too:\n"
      "pacer prove circuit.zkey witness.wtns proof.json public.json");
  options->key.add_options(*cmd);
  cmd->add_option("--witness", options->witnesses, "witness (.wtns); repeat for several proofs")
      ->check(CLI::ExistingFile);
  add_generator_options(*cmd, options->generator);
  cmd->add_option("--witness-out", options->witness_out,
                  "also write the witness computed from --input (numbered like --proof when several)");
  cmd->add_option("files", options->positional, std::string("rapidsnark's form: ") + kRapidsnarkForm)
      ->expected(0, 4);
  cmd->add_option("--proof", options->proof, "where to write the proof")->capture_default_str();
  cmd->add_option("--public", options->public_inputs, "where to write the public signals")->capture_default_str();
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_prove(*options); }};
}

}  // namespace pacer::host
