#pragma once
// What the engine tests share: the real plugins, pool and clock of one engine, made as the runtime
// makes them, and deterministic proofs (r = s = 0) of the shipped poseidon3 circuit.
#include <catch2/catch.hpp>
#include <filesystem>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pacer/formats/wtns.hpp"
#include "pacer/logging.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/prover.hpp"
#include "pacer/runtime.hpp"
#include "pacer/thread_pool.hpp"

namespace engine_rig {

inline const std::filesystem::path kRealPlugins = PACER_PLUGIN_BUILD_DIR;
inline const std::string kCircuit = std::string(PACER_SOURCE_DIR) + "/examples/circuits/poseidon3/bn128";

inline pacer::Params params_of(const std::string& toml_text, const char* where) {
  std::istringstream text(toml_text);
  return pacer::Params(toml::parse(text, "params"), where);
}

// Plugins, pool and clock for one engine, made as the runtime makes them.
struct Rig {
  pacer::ThreadPool pool;  // cpu backend: one lane per pool thread
  pacer::AsioTimekeeper time;
  pacer::HostServices host;
  pacer::PluginRegistry registry{{kRealPlugins}};
  pacer::EngineParts parts;

  explicit Rig(const std::string& scheduler = "greedy", const std::string& params = "", unsigned threads = 2)
      : pool(threads) {
    host.log = pacer::make_logger("off");
    host.pool = &pool;
    host.time = &time;
    parts.allocator = registry.create_allocator("plain", params_of("", "[allocator.params]"), host);
    host.allocator = host.staging = parts.allocator.get();
    parts.scheduler = registry.create_scheduler(scheduler, params_of(params, "[scheduler.params]"), host);
    parts.backend = registry.create_backend("cpu", params_of("", "[backend.params]"), host);
    parts.pool = &pool;
    parts.log = host.log;
  }
  ~Rig() { time.stop(); }
};

inline std::vector<std::future<pacer::ProofOutput>> submit_all(pacer::Prover& prover,
                                                               const std::shared_ptr<pacer::ResidentKey>& key,
                                                               size_t count) {
  auto witness = std::make_shared<const pacer::Witness>(pacer::read_wtns(kCircuit + "/witness.wtns"));
  pacer::ProveOptions deterministic;
  deterministic.zero_blinding = true;
  std::vector<std::future<pacer::ProofOutput>> out;
  for (size_t i = 0; i < count; ++i) out.push_back(prover.submit(key, [witness] { return witness; }, deterministic));
  return out;
}

inline std::string one_proof_alone() {
  Rig rig;
  pacer::Prover prover(rig.parts);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  return submit_all(prover, key, 1)[0].get().proof_json;
}

}  // namespace engine_rig
