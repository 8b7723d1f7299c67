// `pacer serve`: the proving daemon (docs/daemon.md). Loads every [[keys]] entry once, then takes
// proofs over HTTP (serve/api.cpp) into a priority queue that feeds the engine (serve/job_store.cpp).
// SIGTERM or SIGINT: no new proofs, the queued ones are cancelled, the ones in flight get
// [server] shutdown_grace_s to finish; whatever still runs then is reported cancelled. Every
// accepted proof ends in a final state that a client waiting on it is told.
#include <csignal>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
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
#include "serve/api.hpp"
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

std::vector<serve::ServedKey> load_keys(Engine& engine) {
  const Config& config = engine.config();
  if (config.keys.empty())
    throw InputError(fmt::format("serve: {} declares no [[keys]]: the daemon proves only with keys listed there "
                                 "(see examples/configs/serve.toml)",
                                 config.source_name()));
  std::vector<serve::ServedKey> keys;
  for (const KeyEntry& entry : config.keys) {
    const auto start = std::chrono::steady_clock::now();
    auto key = engine.prover().load_key(entry.zkey.string());
    const ProvingKey& pk = key->key();
    engine.log()->info("key {}: {} ({}, {} wires, domain {}), resident in {}", entry.id, entry.zkey.string(),
                       curve_json_name(pk.curve), pk.n_vars, pk.domain_size,
                       human_duration(std::chrono::steady_clock::now() - start));
    std::shared_ptr<const witness::Generator> generator;
    if (!entry.wasm.empty() || !entry.circuit_cpp.empty()) {
      // Compiled now if the cache has none: the first proof must not wait for a compiler.
      GeneratorCliOptions generator_options;
      generator_options.wasm = entry.wasm.string();
      generator_options.circuit_cpp = entry.circuit_cpp.string();
      auto opened = open_generator(generator_options, config, engine.log());
      check_generator_matches(*opened, pk);
      engine.log()->info("key {}: witness generator {} ({} input values)", entry.id, opened->source().describe(),
                         opened->input_count());
      generator = std::move(opened);
    }
    keys.push_back({entry.id, entry.zkey.string(), std::move(key), std::move(generator)});
  }
  return keys;
}

int run_serve(const Options& options) {
  Config config = load_config_or_defaults(options.config);
  if (!options.listen.empty()) {
    if (!is_listen_address(options.listen))
      throw InputError(fmt::format("--listen must be \"host:port\", got \"{}\"", options.listen));
    config.server.listen = options.listen;
  }
  const auto& limits = config.server;
  Engine engine(config, make_logger(config.host.log_level));
  if (!options.port_file.empty()) {
    std::vector<NamedFile> inputs = config_input(options.config);
    for (const KeyEntry& k : config.keys) inputs.push_back({"[[keys]] " + k.id, k.zkey.string()});
    check_outputs(engine, inputs, {{"--port-file", options.port_file}});
  }
  const auto& log = engine.log();
  std::vector<serve::ServedKey> keys = load_keys(engine);

  serve::Metrics metrics;
  asio::io_context io;
  serve::JobStore store(engine.prover(), metrics, {limits.max_queued, std::chrono::seconds(limits.result_ttl_s)}, log);
  serve::HttpServer* server_ptr = nullptr;
  serve::Api api(io, store, metrics, engine, std::move(keys), [&server_ptr] { return server_ptr ? server_ptr->connections() : 0; });
  serve::HttpServer server(io, api,
                           {limits.max_body_bytes, std::chrono::seconds(limits.request_timeout_s), limits.max_connections},
                           log);
  server_ptr = &server;
  const unsigned short port = server.listen(limits.listen);
  const std::string host = limits.listen.substr(0, limits.listen.rfind(':'));
  log->info("listening on http://{}:{} ({} key{}, {} proof{} in flight, queue of {}{})", host, port,
            engine.config().keys.size(), engine.config().keys.size() == 1 ? "" : "s", engine.prover().jobs_in_flight(),
            engine.prover().jobs_in_flight() == 1 ? "" : "s", limits.max_queued,
            limits.token.empty() ? "; no token: anyone who can connect may submit" : "");
  if (!options.port_file.empty()) write_text_file(options.port_file, fmt::format("{}\n", port));

  std::mutex mu;
  std::condition_variable cv;
  int signals_seen = 0;
  asio::signal_set signals(io, SIGTERM, SIGINT);
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int signal) {
    if (ec) return;
    {
      std::lock_guard lock(mu);
      ++signals_seen;
      log->info("{}: {}", signal == SIGTERM ? "SIGTERM" : "SIGINT",
                signals_seen == 1 ? "stopping" : "stopping now, without the grace period");
    }
    cv.notify_all();
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);

  std::vector<std::thread> io_threads;
  for (unsigned t = 0; t < kIoThreads; ++t)
    io_threads.emplace_back([&io, &log] {
      // A handler that throws ends run() on this thread only; log it and go on serving.
      for (;;) {
        try {
          io.run();
          return;
        } catch (const std::exception& e) {
          log->error("an HTTP handler threw (the request is dropped, the daemon goes on): {}", e.what());
        } catch (...) {
          log->error("an HTTP handler threw an unknown exception (the request is dropped, the daemon goes on)");
        }
      }
    });

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
  const size_t abandoned = store.abandon_running(
      fmt::format("cancelled: the daemon stopped before the proof finished ([server] shutdown_grace_s = {})",
                  limits.shutdown_grace_s));
  // The answers to clients waiting on those final states go out before the sockets close.
  server.stop_accepting();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  io.stop();
  for (auto& t : io_threads) t.join();

  const serve::StoreCounts c = store.counts();
  log->info("stopped: {} done, {} failed, {} cancelled ({} of them still running when the grace period ended)", c.done,
            c.failed, c.cancelled, abandoned);
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
