// `pacer gen-circuit`: a synthetic benchmark circuit (.r1cs) and a satisfying witness (.wtns).
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/dev/synthetic.hpp"
#include "pacer/error.hpp"
#include "pacer/host_memory.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  uint64_t constraints = 0;
  unsigned density = 3;
  unsigned n_public = 1;
  std::string curve = "bn128";
  uint64_t seed = 1;
  std::string r1cs, witness;
};

std::string file_size(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? "?" : fmt::format("{:.1f} MB", double(bytes) / 1e6);
}

std::string gigabytes(uint64_t bytes) { return fmt::format("{:.1f} GB", double(bytes) / 1e9); }

// The circuit is held whole in memory and then written: a size that cannot fit is refused before
// any of it is made (2^28 constraints once wrote 6 GB of files, then failed for memory).
void check_room(const Options& options) {
  const dev::SyntheticSizes sizes = dev::synthetic_sizes(options.constraints, options.density, options.n_public);
  const uint64_t available = mem_available_bytes();
  if (available > 0 && sizes.memory_bytes > available)
    throw InputError(fmt::format("gen-circuit: {} constraints of density {} need about {} of memory, and "
                                 "MemAvailable is {} (lower --constraints or --density)",
                                 options.constraints, options.density, gigabytes(sizes.memory_bytes),
                                 gigabytes(available)));
  // Both files on one file system count together.
  struct Out {
    const std::string* path;
    uint64_t bytes;
  };
  const Out outs[] = {{&options.r1cs, sizes.r1cs_bytes}, {&options.witness, sizes.wtns_bytes}};
  for (const Out& out : outs) {
    const std::filesystem::path dir = std::filesystem::absolute(*out.path).parent_path();
    struct statvfs fs {};
    struct stat st {};
    if (::statvfs(dir.c_str(), &fs) != 0 || ::stat(dir.c_str(), &st) != 0) continue;  // check_outputs says why
    uint64_t needed = 0;
    for (const Out& other : outs) {
      struct stat other_st {};
      const auto other_dir = std::filesystem::absolute(*other.path).parent_path();
      if (::stat(other_dir.c_str(), &other_st) == 0 && other_st.st_dev == st.st_dev) needed += other.bytes;
    }
    const uint64_t free_bytes = uint64_t(fs.f_bavail) * fs.f_frsize;
    if (needed > free_bytes)
      throw InputError(fmt::format("gen-circuit: {} constraints of density {} make about {} of files ({} .r1cs, {} "
                                   ".wtns) and {} has {} free (lower --constraints, or write elsewhere)",
                                   options.constraints, options.density, gigabytes(needed),
                                   gigabytes(sizes.r1cs_bytes), gigabytes(sizes.wtns_bytes), dir.string(),
                                   gigabytes(free_bytes)));
  }
}

int run_gen_circuit(const Options& options) {
  const Config config = load_config_or_defaults(options.config);
  Engine engine(config, make_logger(config.host.log_level));
  check_outputs(engine, config_input(options.config), {{"--r1cs", options.r1cs}, {"--witness", options.witness}});
  check_room(options);
  const auto& log = engine.log();
  ThreadPool& pool = engine.pool();
  const CurveId curve = options.curve == "bn128" ? CurveId::bn254 : CurveId::bls12_381;
  using clock = std::chrono::steady_clock;

  auto start = clock::now();
  const dev::SyntheticCircuit circuit =
      dev::gen_circuit(curve, options.constraints, options.density, options.n_public, options.seed, pool);
  log->info("gen-circuit: {}, {} constraints of density {}, {} wires, {} public, seed {}: generated in {} ({} threads)",
            options.curve, circuit.n_constraints, circuit.density, circuit.n_wires(), circuit.n_public, options.seed,
            human_duration(clock::now() - start), pool.size());

  start = clock::now();
  dev::write_circuit_r1cs(options.r1cs, circuit);
  log->info("gen-circuit: wrote {} ({}) in {}", options.r1cs, file_size(options.r1cs),
            human_duration(clock::now() - start));
  start = clock::now();
  dev::write_circuit_wtns(options.witness, circuit);
  log->info("gen-circuit: wrote {} ({}) in {}", options.witness, file_size(options.witness),
            human_duration(clock::now() - start));
  return 0;
}

}  // namespace

Subcommand add_gen_circuit_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "gen-circuit",
      "Generate a synthetic benchmark circuit (.r1cs, as circom writes it) and a witness that satisfies it (.wtns).\n"
      "Wire 0 = 1, then --public public inputs, 2 private inputs, then one wire per constraint; constraint i is\n"
      "(A_i·w)(B_i·w) = w_i with --density random terms in A_i and in B_i over earlier wires. Deterministic in\n"
      "the options (not in the thread count). Make a key for it with `pacer setup --insecure`.");
  cmd->add_option("--constraints", options->constraints, "number of constraints (m)")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--density", options->density, "terms per A row and per B row (real circuits: ~2-4)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--public", options->n_public, "public inputs")->capture_default_str();
  cmd->add_option("--curve", options->curve, "bn128 or bls12381")
      ->capture_default_str()
      ->check(CLI::IsMember({"bn128", "bls12381"}));
  cmd->add_option("--seed", options->seed, "random seed")->capture_default_str();
  cmd->add_option("--r1cs", options->r1cs, "where to write the circuit (.r1cs)")->required();
  cmd->add_option("--witness", options->witness, "where to write the witness (.wtns)")->required();
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_gen_circuit(*options); }};
}

}  // namespace pacer::host
