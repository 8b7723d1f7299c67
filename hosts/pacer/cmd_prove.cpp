// `pacer prove`: load a key once, prove every --witness with it, write proof/public JSON files.
#include <chrono>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common.hpp"
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
  std::string zkey;
  std::string key_id;
  std::vector<std::string> witnesses;
  std::string proof = "proof.json";
  std::string public_inputs = "public.json";
};

// With several witnesses, output i goes to <stem>-<i><ext>: proof.json -> proof-0.json, proof-1.json.
fs::path output_path(const std::string& base, size_t index, size_t count) {
  if (count == 1) return base;
  const fs::path p(base);
  return p.parent_path() / fmt::format("{}-{}{}", p.stem().string(), index, p.extension().string());
}

std::string zkey_path(const Options& options, const Config& config) {
  if (!options.zkey.empty()) return options.zkey;
  const KeyEntry* entry = config.find_key(options.key_id);
  if (!entry) {
    std::string ids;
    for (const auto& k : config.keys) ids += (ids.empty() ? "" : ", ") + k.id;
    throw InputError(fmt::format("--key {}: no [[keys]] entry with that id in {} (declared: {})", options.key_id,
                                 config.source_name(), ids.empty() ? "none" : ids));
  }
  return entry->zkey.string();
}

int run_prove(const Options& options) {
  if (options.zkey.empty() == options.key_id.empty())
    throw InputError("prove: give either --zkey FILE or --key ID (an id from [[keys]] in the --config file)");
  const Config config = load_config_or_defaults(options.config);
  const std::string zkey = zkey_path(options, config);
  const size_t count = options.witnesses.size();
  // Before any work: no output may be an input, a device or another output (checked once the
  // engine knows its plugin files).
  std::vector<NamedFile> inputs = config_input(options.config), outputs;
  inputs.push_back({options.key_id.empty() ? "--zkey" : "--key " + options.key_id, zkey});
  for (const auto& w : options.witnesses) inputs.push_back({"--witness", w});
  for (size_t i = 0; i < count; ++i) {
    outputs.push_back({"--proof", output_path(options.proof, i, count).string()});
    outputs.push_back({"--public", output_path(options.public_inputs, i, count).string()});
  }
  Engine engine(config, make_logger(config.host.log_level));
  check_outputs(engine, inputs, outputs);
  const auto& log = engine.log();

  const auto key_start = std::chrono::steady_clock::now();
  const std::shared_ptr<ResidentKey> key = engine.prover().load_key(zkey);
  const ProvingKey& pk = key->key();
  log->info("key {}: {}, {} wires, {} public, domain {}, resident in {}", zkey, curve_json_name(pk.curve), pk.n_vars,
            pk.n_public, pk.domain_size, human_duration(std::chrono::steady_clock::now() - key_start));
  // Every witness is read and matched to the key first, so a bad one fails before any proof is
  // written; each is read again when its turn comes, so that a long batch never holds them all.
  for (const auto& path : options.witnesses) check_witness_matches(pk, read_wtns(path, engine.witness_allocator()));

  const ProveOptions prove_options;  // blinded: r and s fresh from the OS for every proof
  // Every proof goes to the engine at once; [pipeline] jobs_in_flight of them run together, and
  // each reads its witness in its own load stage, so a long batch never holds them all.
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<ProofOutput>> proofs;
  for (size_t i = 0; i < count; ++i)
    proofs.push_back(engine.prover().submit(
        key, [path = options.witnesses[i], allocator = engine.witness_allocator()] {
          return std::make_shared<const Witness>(read_wtns(path, allocator));
        },
        prove_options));
  // Outputs in order as proofs end; a failed proof fails the command, after the others are written.
  std::exception_ptr first_error;
  for (size_t i = 0; i < count; ++i) {
    ProofOutput out;
    try {
      out = proofs[i].get();
    } catch (const std::exception& e) {
      // The first failure is the command's one error line; later ones are logged.
      if (!first_error) first_error = std::current_exception();
      else log->error("proof {}/{}: {}: {}", i + 1, count, options.witnesses[i], e.what());
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
    commit_together({&proof_file, &public_file});

    std::string stages;
    for (int s = 0; s < kStageCount; ++s) {
      if (out.stage_time[s].count() == 0) continue;
      stages += fmt::format("{}{} {}", stages.empty() ? "" : ", ", stage_name(static_cast<Stage>(s)),
                            human_duration(out.stage_time[s]));
    }
    log->info("proof {}/{}: {} -> {}, {} in {} ({}; {} since the first was queued)", i + 1, count,
              options.witnesses[i], proof_path, public_path, human_duration(out.ended_at - out.started_at), stages,
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
      "Prove witnesses with a Groth16 key (snarkjs .zkey/.wtns in, snarkjs proof.json/public.json out).\n"
      "The key is loaded once and reused for every --witness. With several witnesses the outputs are\n"
      "numbered in the order given: proof-0.json/public-0.json, proof-1.json/public-1.json, ...\n"
      "(the number goes before the extension of --proof/--public).");
  auto* zkey = cmd->add_option("--zkey", options->zkey, "proving key (.zkey, as snarkjs writes it)")
                   ->check(CLI::ExistingFile);
  auto* key = cmd->add_option("--key", options->key_id, "id of a [[keys]] entry of the --config file, instead of --zkey");
  zkey->excludes(key);
  cmd->add_option("--witness", options->witnesses, "witness (.wtns); repeat for several proofs")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--proof", options->proof, "where to write the proof")->capture_default_str();
  cmd->add_option("--public", options->public_inputs, "where to write the public signals")->capture_default_str();
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_prove(*options); }};
}

}  // namespace pacer::host
