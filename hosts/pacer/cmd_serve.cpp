// `pacer serve`: the proving daemon (docs/daemon.md). Loads every [[keys]] entry once, then takes
// proofs over HTTP (serve/api.cpp) into a priority queue that feeds the engine (serve/job_store.cpp).
// SIGTERM, SIGINT or SIGHUP: no new proofs, the queued ones are cancelled, the ones in flight get
// [server] shutdown_grace_s to finish; whatever still runs then is reported cancelled. Every
// accepted proof ends in a final state that a client waiting on it is told.
#include <csignal>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <atomic>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common.hpp"
#include "generator_options.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/logging.hpp"
#include "pacer/printable.hpp"
#include "pacer/thread_guard.hpp"
#include "queue/pg.hpp"
#include "queue/pg_store.hpp"
#include "queue/worker.hpp"
#include "served_keys.hpp"
#include "serve/api.hpp"
#include "serve/fd_limit.hpp"
#include "serve/http_server.hpp"
#include "serve/job_store.hpp"
#include "serve/metrics.hpp"

namespace pacer::host {

namespace asio = boost::asio;

namespace {

struct Options {
  std::string config;
  std::string listen;
  std::string port_file;
};

// Threads that run the HTTP side; proving runs on the engine's own threads.
constexpr unsigned kIoThreads = 2;

int run_serve(const Options& options) {
  Config config = load_config_or_defaults(options.config);
  if (!options.listen.empty()) {
    if (!is_listen_address(options.listen))
      throw InputError(fmt::format("--listen must be \"host:port\", got \"{}\"", printable(options.listen)));
    config.server.listen = options.listen;
  }
  const auto& limits = config.server;
  const bool durable = config.queue.enabled();
  if (durable) queue::check_conninfo(config.queue.url, "[queue] url");
  // A front that proves locally stores only checked proofs, as a worker does.
  if (durable && config.queue.prove_locally && config.queue.verify_proofs) config.host.verify_proofs = true;
  Engine engine(config, make_logger(config.host.log_level));
  if (!options.port_file.empty()) {
    std::vector<NamedFile> inputs = config_input(options.config);
    for (const KeyEntry& k : config.keys) inputs.push_back({"[[keys]] " + k.id, k.zkey.string()});
    check_outputs(engine, inputs, {{"--port-file", options.port_file}});
  }
  const auto& log = engine.log();
  asio::io_context io;
  const auto endpoint = serve::resolve_listen(io, limits.listen);
  // A token is the only thing between the network and the proofs: off the loopback, none is a
  // choice to be made explicitly (a proxy in front that authenticates, a closed network).
  if (limits.token.empty() && !endpoint.address().is_loopback()) {
    if (!limits.allow_no_token)
      throw InputError(fmt::format(
          "refusing to listen on {} ({}, not a loopback address) without a token: anyone who can reach it could "
          "submit proofs and read every result. Set [server] token, or allow_no_token = true when something in front "
          "authenticates (docs/daemon.md, Deployment)",
          printable(limits.listen), endpoint.address().to_string()));
    log->warn("listening on {} with no token ([server] allow_no_token = true): anyone who can reach it may submit "
              "proofs and read every result", endpoint.address().to_string());
  }
  const bool proves_here = !durable || config.queue.prove_locally;
  std::vector<serve::ServedKey> keys = load_served_keys(engine, proves_here, "serve");

  // Before any connection: a daemon whose connections can take every descriptor cannot accept.
  const serve::ConnectionBudget fds = serve::plan_connections(limits.max_connections);
  if (fds.connections < limits.max_connections)
    log->warn("max_connections {} lowered to {}: the limit on open files is {} (ulimit -n; {} open now, {} kept in "
              "reserve); raise it for more",
              limits.max_connections, fds.connections, fds.soft, fds.open_now, serve::kReservedDescriptors);
  else
    log->debug("open files: limit {} (was {}; hard limit {}), {} open, up to {} connections", fds.soft,
               fds.soft_before, fds.hard, fds.open_now, fds.connections);

  serve::Metrics metrics;
  // [queue]: jobs in PostgreSQL, for every front and worker; else in this process's memory.
  std::unique_ptr<serve::JobQueue> store_ptr;
  if (durable)
    store_ptr = std::make_unique<queue::PgJobQueue>(engine.config().queue, limits.max_queued, log);
  else
    store_ptr = std::make_unique<serve::JobStore>(engine.prover(), metrics,
                                                  serve::JobStore::Limits{limits.max_queued,
                                                                          std::chrono::seconds(limits.result_ttl_s)},
                                                  log);
  serve::JobQueue& store = *store_ptr;
  // prove_locally: this process is one of the workers too (one process per host).
  std::atomic<bool> worker_stop{false};
  std::unique_ptr<queue::Worker> worker;
  std::thread worker_thread;
  size_t worker_left = 0;
  if (durable && config.queue.prove_locally) {
    std::vector<queue::WorkerKey> worker_keys;
    for (const auto& k : keys) worker_keys.push_back({k.id, k.key, k.generator});
    worker = std::make_unique<queue::Worker>(engine.prover(), engine.witness_allocator(), engine.config().queue,
                                             std::move(worker_keys), log);
    worker_thread = std::thread([&] {
      call_and_log_exceptions([&] { worker_left = worker->run(worker_stop, std::chrono::seconds(limits.shutdown_grace_s)); },
                              log.get(), "the in-process worker");
    });
  }
  serve::HttpServer* server_ptr = nullptr;
  serve::Api api(io, store, metrics, engine, std::move(keys), [&server_ptr] { return server_ptr ? server_ptr->connections() : 0; });
  serve::HttpServer server(
      io, api,
      {limits.max_body_bytes, std::chrono::seconds(limits.request_timeout_s), fds.connections, limits.access_log}, log);
  server_ptr = &server;
  const unsigned short port = server.listen(endpoint, limits.listen);
  const std::string host = printable(limits.listen.substr(0, limits.listen.rfind(':')));
  log->info("listening on http://{}:{} ({} key{}, {} proof{} in flight, queue of {}{})", host, port,
            engine.config().keys.size(), engine.config().keys.size() == 1 ? "" : "s", engine.prover().jobs_in_flight(),
            engine.prover().jobs_in_flight() == 1 ? "" : "s", limits.max_queued,
            limits.token.empty() ? "; no token: anyone who can connect may submit" : "");
  if (!options.port_file.empty()) write_text_file(options.port_file, fmt::format("{}\n", port));

  std::mutex mu;
  std::condition_variable cv;
  int signals_seen = 0;
  // SIGHUP too: a closed terminal or a supervisor's reload must not end the daemon without draining.
  asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int signal) {
    if (ec) return;
    {
      std::lock_guard lock(mu);
      ++signals_seen;
      log->info("{}: {}", signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "SIGHUP",
                signals_seen == 1 ? "stopping" : "stopping now, without the grace period");
    }
    cv.notify_all();
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);

  std::vector<std::thread> io_threads;
  for (unsigned t = 0; t < kIoThreads; ++t)
    // A handler that throws is logged and this thread serves on (the request it served is dropped).
    io_threads.emplace_back([&io, &log] { run_io_until_stopped(io, log.get(), "an HTTP handler"); });

  // Until a signal: forget expired results once a second.
  {
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, std::chrono::seconds(1), [&] { return signals_seen > 0; })) {
      lock.unlock();
      store.expire();
      lock.lock();
    }
  }

  api.set_stopping();
  const size_t in_flight = store.running();
  store.close("cancelled: the daemon is shutting down and the proof had not started");
  log->info("no new proofs; waiting up to {} s for the {} in flight ([server] shutdown_grace_s)",
            limits.shutdown_grace_s, in_flight);
  {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.shutdown_grace_s);
    std::unique_lock lock(mu);
    while (signals_seen < 2 && std::chrono::steady_clock::now() < deadline && store.running() > 0) {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      lock.lock();
    }
  }
  if (worker) {
    worker_stop = true;
    worker->wake();
    worker_thread.join();
  }
  const size_t abandoned = worker_left + store.abandon_running(
      fmt::format("cancelled: the daemon stopped before the proof finished ([server] shutdown_grace_s = {})",
                  limits.shutdown_grace_s));
  // The answers to clients waiting on those final states go out before the sockets close.
  server.stop_accepting();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  io.stop();
  for (auto& t : io_threads) t.join();

  if (durable) {
    // The jobs stay in the database for the other fronts and the workers.
    log->info("stopped ({} proof{} of the in-process worker left unfinished, given back to the queue)", worker_left,
              worker_left == 1 ? "" : "s");
  } else {
    const serve::StoreCounts c = store.counts();
    log->info("stopped: {} done, {} failed, {} cancelled ({} of them still running when the grace period ended)",
              c.done, c.failed, c.cancelled, abandoned);
  }
  if (abandoned > 0) {
    // The engine cannot stop a proof midway, and destroying it would wait for them: leave now.
    log->flush();
    std::fflush(stdout);
    std::_Exit(0);
  }
  return 0;
}

}  // namespace

Subcommand add_serve_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "serve",
      "Run the proving daemon: load every [[keys]] entry of --config once, then prove witnesses sent over\n"
      "HTTP (POST /v1/proofs?key=ID with the .wtns bytes; GET /v1/proofs/{id}; /v1/status; /metrics).\n"
      "SIGTERM finishes the proofs in flight within [server] shutdown_grace_s. See docs/daemon.md.");
  cmd->add_option("--listen", options->listen, "host:port to listen on, instead of [server] listen (port 0: any free one)");
  cmd->add_option("--port-file", options->port_file, "write the port listened on to this file once listening");
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_serve(*options); }};
}

}  // namespace pacer::host
