// `pacer bench`: throughput and latency of N proofs of one resident key, J in flight at once, with
// per-stage percentiles, memory and CPU use; optionally a summary JSON and a Chrome trace.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "bench_report.hpp"
#include "common.hpp"
#include "generator_options.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/logging.hpp"
#include "pacer/thread_guard.hpp"

namespace pacer::host {

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string config;
  KeyChoice key;
  std::vector<std::string> witnesses;
  GeneratorCliOptions generator;  // --wasm/--circuit-cpp + --input: witnesses computed in each proof
  // Signed, so that "-1" is refused with a clear message instead of wrapping to 2^64 - 1.
  int64_t proofs = 0;
  int64_t jobs = 0;
  int64_t warmup = 1;
  std::string summary_path;
  std::string trace_path;
  bool read_witness = false;  // each proof reads its .wtns in its load stage, as `pacer prove` does
};

// One line on stderr: "proofs [#####.....] 12/100  3.41 proofs/s  ETA 26 s". Its own thread
// redraws it (at most 10 times a second), so the rate and ETA move even while proofs take
// minutes each. Draws nothing unless stderr is a terminal: logs and CI output stay clean.
class ProgressBar {
 public:
  ProgressBar(std::string label, const std::atomic<size_t>& done, size_t total, BenchClock::time_point start)
      : label_(std::move(label)), done_(done), total_(total), start_(start) {
    if (!::isatty(STDERR_FILENO)) return;
    try {
      thread_ = std::thread(
          [this] { call_and_log_exceptions([this] { redraw_until_stopped(); }, nullptr, "the progress bar"); });
    } catch (const std::system_error&) {
      // No thread to spare for the bar: the benchmark runs without it.
    }
  }
  ~ProgressBar() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    thread_.join();
    std::fprintf(stderr, "\r\033[K");  // leave the terminal as the table and errors expect it
    std::fflush(stderr);
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  void redraw_until_stopped() {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stopping_; })) draw();
  }

  void draw() const {
    constexpr size_t kWidth = 30;
    const size_t done = std::min(done_.load(), total_);
    const double elapsed = std::chrono::duration<double>(BenchClock::now() - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    const std::string eta =
        done == 0 ? "?"
                  : human_duration(std::chrono::nanoseconds(
                        static_cast<int64_t>(static_cast<double>(total_ - done) / rate * 1e9)));
    const size_t filled = done * kWidth / total_;
    std::fprintf(stderr, "\r%-7s [%s%s] %zu/%zu  %.2f proofs/s  ETA %s\033[K", label_.c_str(),
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), done, total_, rate,
                 eta.c_str());
    std::fflush(stderr);
  }

  std::string label_;
  const std::atomic<size_t>& done_;
  size_t total_;
  BenchClock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once everything it reads is initialised
};

// Proves `count` proofs through the engine (which keeps its jobs_in_flight of them running);
// proof i uses witness i % `witnesses` from source(i) (with --input, a generator run in the proof's
// witness stage: prove_options.witness_stage). Every proof is queued at once and waited for in
// order; the first failure is rethrown once every proof has ended. `samples` (count entries, or
// null for warm-up) receives proof i at index i.
void run_proofs(Prover& prover, const std::shared_ptr<ResidentKey>& key, size_t witnesses,
                const std::function<WitnessSource(size_t)>& source, const ProveOptions& prove_options, size_t count,
                std::vector<ProofSample>* samples, std::atomic<size_t>& done) {
  std::vector<std::future<ProofOutput>> futures;
  futures.reserve(count);
  for (size_t i = 0; i < count; ++i) futures.push_back(prover.submit(key, source(i % witnesses), prove_options));
  std::exception_ptr first_error;
  for (size_t i = 0; i < count; ++i) {
    try {
      ProofOutput out = futures[i].get();
      if (samples)
        (*samples)[i] = ProofSample{out.job, i % witnesses, out.started_at, out.ended_at, std::move(out.stages),
                                    out.attempts};
      ++done;
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

int run_bench(const Options& options) {
  // Every proof keeps a sample and a queued future; jobs are the engine's proofs in flight.
  constexpr int64_t kMaxProofs = 100'000'000, kMaxJobs = kMaxJobsInFlight;
  if (options.proofs < 1 || options.proofs > kMaxProofs)
    throw InputError(fmt::format("bench: --proofs must be between 1 and {} (got {})", kMaxProofs, options.proofs));
  if (options.jobs < 1 || options.jobs > kMaxJobs)
    throw InputError(fmt::format("bench: --jobs (proofs in flight at once) must be between 1 and {} (got {})",
                                 kMaxJobs, options.jobs));
  if (options.warmup < 0 || options.warmup > kMaxProofs)
    throw InputError(fmt::format("bench: --warmup must be between 0 and {} (got {})", kMaxProofs, options.warmup));
  const size_t proofs = static_cast<size_t>(options.proofs), jobs = static_cast<size_t>(options.jobs),
               warmup = static_cast<size_t>(options.warmup);
  const Config config = load_config_or_defaults(options.config);
  const std::string zkey = options.key.path(config, "bench");
  const bool from_inputs = !options.generator.inputs.empty();
  if (from_inputs == !options.witnesses.empty())
    throw InputError("bench: give either --witness W.wtns or --input input.json with --wasm or --circuit-cpp");
  if (from_inputs != options.generator.given())
    throw InputError("bench: --input and --wasm/--circuit-cpp go together (witnesses computed in each proof)");
  if (from_inputs && options.read_witness)
    throw InputError("bench: --read-witness reads --witness files; with --input every proof computes its witness");
  Engine engine(config, make_logger(config.host.log_level), RuntimeOptions{static_cast<unsigned>(jobs)});
  // Fail before the key load and the proofs, not after them.
  std::vector<NamedFile> inputs = config_input(options.config), outputs;
  inputs.push_back({options.key.label(), zkey});
  for (const auto& w : options.witnesses) inputs.push_back({"--witness", w});
  add_generator_inputs(options.generator, inputs);
  if (!options.summary_path.empty()) outputs.push_back({"--json", options.summary_path});
  if (!options.trace_path.empty()) outputs.push_back({"--trace", options.trace_path});
  check_outputs(engine, inputs, outputs);

  BenchRun run;
  run.command = command_line();
  run.date_utc = utc_now_iso8601();
  run.machine = probe_machine();

  // Read once, up front (file reads are not timed), and with --read-witness again by every proof in
  // its load stage (timed, as `pacer prove` and the daemon read theirs).
  std::vector<std::shared_ptr<const Witness>> witnesses;
  for (const std::string& path : options.witnesses)
    witnesses.push_back(std::make_shared<const Witness>(read_wtns(path, engine.witness_allocator())));
  // With --input, every proof runs the generator in its own witness stage (timed: it is the heavy
  // CPU stage of a circom proof); the input.json files are read up front.
  const auto circuit_inputs = read_inputs(options.generator, *engine.log());
  const auto generator = from_inputs ? open_generator(options.generator, config, engine.log()) : nullptr;
  const size_t witness_count = from_inputs ? circuit_inputs.size() : witnesses.size();
  ProveOptions prove_options;
  prove_options.witness_stage = from_inputs;
  const auto source = [&](size_t i) -> WitnessSource {
    if (from_inputs)
      return generator_witness_source(generator, circuit_inputs[i], engine.witness_allocator(),
                                      options.generator.strict_inputs);
    if (!options.read_witness) return [witness = witnesses[i]] { return witness; };
    return [path = options.witnesses[i], allocator = engine.witness_allocator()] {
      return std::make_shared<const Witness>(read_wtns(path, allocator));
    };
  };

  Prover& prover = engine.prover();
  const BackendInfo backend = prover.parts().backend->info();
  run.config_source = config.source_name();
  run.backend = config.backend.plugin;
  run.allocator = config.allocator.plugin;
  run.scheduler = config.scheduler.plugin;
  run.backend_devices = backend.devices;
  run.backend_lanes = backend.lanes;
  run.cpu_pool_threads = prover.parts().pool->size();

  const auto key_start = BenchClock::now();
  const std::shared_ptr<ResidentKey> key = prover.load_key(zkey);
  run.key_load = BenchClock::now() - key_start;
  const ProvingKey& pk = key->key();
  for (const auto& w : witnesses) check_witness_matches(pk, *w);  // a bad one fails now, not mid-run
  if (generator) check_generator_matches(*generator, pk);
  run.key_path = zkey;
  run.curve = std::string(curve_json_name(pk.curve));
  run.n_vars = pk.n_vars;
  run.n_public = pk.n_public;
  run.domain_size = pk.domain_size;
  run.witnesses = from_inputs ? options.generator.inputs : options.witnesses;
  run.proofs = proofs;
  run.jobs = jobs;
  run.warmup = warmup;

  // Warm-up at the same concurrency (up to K), so that pooled allocators and caches are sized
  // for J proofs in flight before the clock starts.
  if (warmup > 0) {
    std::atomic<size_t> warm_done{0};
    ProgressBar bar("warm-up", warm_done, warmup, BenchClock::now());
    run_proofs(prover, key, witness_count, source, prove_options, warmup, nullptr, warm_done);
  }

  run.samples.resize(proofs);
  run.usage_before = probe_resource_usage();
  run.alloc_before = prover.parts().allocator->stats();
  run.started_at = BenchClock::now();
  {
    std::atomic<size_t> done{0};
    ProgressBar bar("proofs", done, proofs, run.started_at);
    run_proofs(prover, key, witness_count, source, prove_options, proofs, &run.samples, done);
  }
  run.ended_at = run.started_at;  // the last proof's end: thread joins are not proving time
  for (const ProofSample& s : run.samples) run.ended_at = std::max(run.ended_at, s.ended_at);
  run.usage_after = probe_resource_usage();
  run.alloc_after = prover.parts().allocator->stats();

  std::fputs(format_table(run).c_str(), stdout);
  std::fflush(stdout);
  if (!options.summary_path.empty()) write_text_file(options.summary_path, summary_json(run));
  if (!options.trace_path.empty()) write_text_file(options.trace_path, trace_json(run));
  return 0;
}

}  // namespace

Subcommand add_bench_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "bench",
      "Benchmark proving: load a key once, run --warmup proofs (not counted), then --proofs proofs with\n"
      "--jobs of them in flight, cycling through the --witness files (or the --input files, each proof\n"
      "then running the --wasm/--circuit-cpp generator in its witness stage). Prints wall time, proofs/s,\n"
      "latency and per-stage percentiles, peak memory and CPU time; --json and --trace save them.");
  options->key.add_options(*cmd);
  cmd->add_option("--witness", options->witnesses, "witness (.wtns); repeat to cycle through several")
      ->check(CLI::ExistingFile);
  add_generator_options(*cmd, options->generator);
  cmd->add_option("--proofs", options->proofs, "proofs to time (>= 1)")->required();
  cmd->add_option("--jobs", options->jobs, "proofs in flight at once (>= 1)")->required();
  cmd->add_option("--warmup", options->warmup, "untimed proofs run first")->capture_default_str();
  cmd->add_flag("--read-witness", options->read_witness,
                "each proof reads its --witness file again in its load stage (timed), as `pacer prove` does");
  cmd->add_option("--json", options->summary_path, "write the summary as JSON (seconds, bytes) to this file");
  cmd->add_option("--trace", options->trace_path, "write a Chrome trace-event JSON (Perfetto) to this file");
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_bench(*options); }};
}

}  // namespace pacer::host
