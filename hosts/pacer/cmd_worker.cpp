// `pacer worker --config worker.toml`: takes jobs from the PostgreSQL queue ([queue]) for the
// [[keys]] it holds resident and proves them with its own engine (docs/scale-out.md).
// SIGTERM, SIGINT or SIGHUP: no new leases; the proofs in flight get [server] shutdown_grace_s
// to finish and be stored, and the rest go back to the queue for another worker.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "queue/pg.hpp"
#include "queue/worker.hpp"
#include "served_keys.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
};

std::atomic<bool> g_stop{false};
const queue::Worker* g_worker = nullptr;

extern "C" void on_stop_signal(int) {
  g_stop = true;
  if (g_worker) g_worker->wake();  // one write(2): async-signal-safe
}

int run_worker(const Options& options) {
  Config config = load_config_or_defaults(options.config);
  if (!config.queue.enabled())
    throw InputError(fmt::format("worker: {} has no [queue] url: a worker takes its jobs from the PostgreSQL queue "
                                 "(docs/scale-out.md)",
                                 config.source_name()));
  queue::check_conninfo(config.queue.url, "[queue] url");
  // Each proof is checked before it is stored: a worker with a bad device must not publish it.
  if (config.queue.verify_proofs) config.host.verify_proofs = true;
  Engine engine(config, make_logger(config.host.log_level));
  std::vector<queue::WorkerKey> keys;
  for (auto& k : load_served_keys(engine, true, "worker")) keys.push_back({k.id, k.key, k.generator});

  queue::Worker worker(engine.prover(), engine.witness_allocator(), engine.config().queue, std::move(keys),
                       engine.log());
  g_worker = &worker;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &action, nullptr);

  const size_t left = worker.run(g_stop, std::chrono::seconds(engine.config().server.shutdown_grace_s));
  if (left > 0) {
    // The engine cannot stop a proof midway, and destroying it would wait for them: leave now.
    engine.log()->flush();
    std::fflush(stdout);
    std::_Exit(0);
  }
  return 0;
}

}  // namespace

Subcommand add_worker_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "worker",
      "Take proofs from the PostgreSQL job queue ([queue] url) for the [[keys]] of --config, prove them and\n"
      "store the results; fronts (pacer serve with the same [queue]) take and answer the requests.\n"
      "See docs/scale-out.md.");
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_worker(*options); }};
}

}  // namespace pacer::host
