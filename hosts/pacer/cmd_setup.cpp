// `pacer setup --insecure`: a development Groth16 key (zkey + verification key) straight from an
// .r1cs, with toxic waste this process drew and then forgot. For benchmarks only.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/dev/setup.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  bool insecure = false;
  std::string r1cs, zkey, vkey;
};

using clock = std::chrono::steady_clock;

// A one-line \r progress bar on stderr when it is a terminal; a log line per finished phase.
class PhaseReporter {
 public:
  explicit PhaseReporter(std::shared_ptr<spdlog::logger> log) : log_(std::move(log)), tty_(::isatty(STDERR_FILENO)) {}

  void operator()(std::string_view phase, uint64_t done, uint64_t total) {
    const auto now = clock::now();
    if (phase != phase_) {
      phase_ = phase;
      start_ = now;
    }
    if (done >= total) {
      clear();
      log_->info("setup: {:<12} {:>10} in {}", phase_, total, human_duration(now - start_));
      return;
    }
    if (!tty_ || now - drawn_ < std::chrono::milliseconds(100)) return;
    drawn_ = now;
    constexpr int kWidth = 40;
    const int filled = total ? int(double(done) / double(total) * kWidth) : 0;
    std::fprintf(stderr, "\r%-12s [%s%s] %3d%%", phase_.c_str(), std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(kWidth - filled), '.').c_str(), total ? int(100.0 * double(done) / double(total)) : 0);
    std::fflush(stderr);
    bar_shown_ = true;
  }

  void clear() {
    if (!bar_shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    bar_shown_ = false;
  }

 private:
  std::shared_ptr<spdlog::logger> log_;
  bool tty_;
  bool bar_shown_ = false;
  std::string phase_;
  clock::time_point start_, drawn_;
};

std::string file_size(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? "?" : fmt::format("{:.1f} MB", double(bytes) / 1e6);
}

int run_setup(const Options& options) {
  if (!options.insecure)
    throw InputError(
        "setup makes a key from random toxic waste that this process knew: anyone holding it could forge proofs. "
        "It is for benchmarks only: pass --insecure to confirm (use a real ceremony, e.g. snarkjs powersoftau + "
        "groth16 setup, for production keys)");
  const Config config = load_config_or_defaults(options.config);
  std::vector<NamedFile> inputs = config_input(options.config);
  inputs.push_back({"--r1cs", options.r1cs});
  Engine engine(config, make_logger(config.host.log_level));
  check_outputs(engine, inputs, {{"--zkey", options.zkey}, {"--vkey", options.vkey}});
  const auto& log = engine.log();
  ThreadPool& pool = engine.pool();

  const auto begin = clock::now();
  const R1cs r1cs = read_r1cs(options.r1cs);
  log->info("setup: {}: {}, {} constraints, {} wires, {} public; read in {} ({} threads)", options.r1cs,
            curve_json_name(r1cs.curve), r1cs.n_constraints, r1cs.n_wires, r1cs.n_public(),
            human_duration(clock::now() - begin), pool.size());
  log->warn("setup: INSECURE development key: never use {} for anything but benchmarks", options.zkey);

  PhaseReporter reporter(log);
  const dev::SetupReport report = dev::setup_insecure(
      r1cs, options.zkey, options.vkey, pool,
      [&](std::string_view phase, uint64_t done, uint64_t total) { reporter(phase, done, total); });
  reporter.clear();
  log->info("setup: wrote {} ({}; domain {}, {} coefficients) and {} in {} total", options.zkey,
            file_size(options.zkey), report.domain_size, report.n_coeffs, options.vkey,
            human_duration(clock::now() - begin));
  return 0;
}

}  // namespace

Subcommand add_setup_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "setup",
      "Make an INSECURE development Groth16 key from an .r1cs, for benchmarks at sizes where a ceremony is\n"
      "impractical: random toxic waste (tau, alpha, beta, delta) from the OS, gamma = 1 as snarkjs.\n"
      "The .zkey is what snarkjs groth16 setup would make (snarkjs proves and verifies with it); the\n"
      "verification key JSON is what `snarkjs zkey export verificationkey` writes, vk_alphabeta_12\n"
      "(e(alpha1, beta2), which Solidity verifiers read) included.\n"
      "Refuses without --insecure. Domains up to 2^27 (bn128) / 2^31 (bls12381).");
  cmd->add_flag("--insecure", options->insecure,
                "confirm that the key is for benchmarks only (this process knew its toxic waste)");
  cmd->add_option("--r1cs", options->r1cs, "the circuit (.r1cs, as circom writes it)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--zkey", options->zkey, "where to write the proving key (.zkey)")->required();
  cmd->add_option("--vkey", options->vkey, "where to write the verification key (.json)")->required();
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_setup(*options); }};
}

}  // namespace pacer::host
