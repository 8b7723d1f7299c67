#include "served_keys.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "generator_options.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

std::vector<serve::ServedKey> load_served_keys(Engine& engine, bool resident, const std::string& command) {
  const Config& config = engine.config();
  if (config.keys.empty())
    throw InputError(fmt::format("{}: {} declares no [[keys]]: it proves only with keys listed there "
                                 "(see examples/configs/serve.toml)",
                                 command, config.source_name()));
  std::vector<serve::ServedKey> keys;
  for (const KeyEntry& entry : config.keys) {
    const auto start = std::chrono::steady_clock::now();
    std::shared_ptr<ResidentKey> key;
    std::shared_ptr<const ProvingKey> header;
    if (resident) {
      key = engine.prover().load_key(entry.zkey.string());
      header = std::shared_ptr<const ProvingKey>(key, &key->key());  // lives as long as the resident key
    } else {
      header = read_zkey(entry.zkey.string());
    }
    const ProvingKey& pk = *header;
    engine.log()->info("key {}: {} ({}, {} wires, domain {}), {} in {}", entry.id, entry.zkey.string(),
                       curve_json_name(pk.curve), pk.n_vars, pk.domain_size,
                       resident ? "resident" : "header read (workers prove)",
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
    keys.push_back({entry.id, entry.zkey.string(), std::move(header), std::move(key), std::move(generator)});
  }
  return keys;
}

}  // namespace pacer::host
