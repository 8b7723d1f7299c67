// `pacer verify --vkey F --proof F --public F`: checks a Groth16 proof natively, as
// `snarkjs groth16 verify` does (verify.hpp says where it is stricter). Exit 0 valid, 1 invalid
// with a one-line reason, 2 bad input (a file that is not a verification key, proof or public
// signals of the expected shape).
#include <iostream>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/logging.hpp"
#include "pacer/verify.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  std::string vkey, proof, public_signals;
};

// Far above any real document (a verification key grows by ~250 bytes per public signal, the
// public signals by ~80; a proof is under 2 KB), low enough that a wrong file is refused before it
// is read into memory.
constexpr uint64_t kMaxKeyBytes = uint64_t(64) << 20, kMaxPublicBytes = uint64_t(64) << 20;
constexpr uint64_t kMaxProofBytes = uint64_t(1) << 20;

int run_verify(const Options& options) {
  // The config is read and checked as a file, but no plugin is loaded: verifying needs none, and a
  // library that is not loaded runs no code (its constructor could end the process with status 0).
  [[maybe_unused]] const Config config = load_config_or_defaults(options.config);
  const std::string vkey = RegularFile(options.vkey).read_all(kMaxKeyBytes, "verification key");
  const std::string proof = RegularFile(options.proof).read_all(kMaxProofBytes, "proof");
  const std::string public_signals = RegularFile(options.public_signals).read_all(kMaxPublicBytes, "public signals file");
  const Verdict verdict = verify_groth16({vkey, options.vkey}, {proof, options.proof}, {public_signals, options.public_signals});
  if (!verdict.valid) {
    fmt::print(stderr, "pacer: invalid proof: {}\n", verdict.reason);
    return static_cast<int>(ExitCode::failed);
  }
  std::cout << "OK: the proof is valid\n";
  return 0;
}

}  // namespace

Subcommand add_verify_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "verify",
      "Verify a Groth16 proof (snarkjs verification_key.json, proof.json, public.json), as snarkjs groth16 verify\n"
      "does, and also refuse proof points outside the prime-order subgroups.\n"
      "Exit status: 0 valid, 1 invalid (the reason on stderr), 2 bad input.");
  cmd->add_option("--vkey", options->vkey, "verification key (snarkjs zkey export verificationkey, or pacer setup)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--proof", options->proof, "the proof (proof.json)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--public", options->public_signals, "its public signals (public.json)")
      ->required()
      ->check(CLI::ExistingFile);
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_verify(*options); }};
}

}  // namespace pacer::host
