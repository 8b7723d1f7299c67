#include "common.hpp"

#include <dlfcn.h>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/backend.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

void add_config_option(CLI::App& command, std::string& path) {
  command.add_option("--config", path,
                     "TOML config selecting backend, allocator, scheduler (default: cpu, pooled, greedy); "
                     "see examples/configs/default.toml");
}

void KeyChoice::add_options(CLI::App& command) {
  auto* file = command.add_option("--zkey", zkey, "proving key (.zkey, as snarkjs writes it)")->check(CLI::ExistingFile);
  auto* entry = command.add_option("--key", id, "id of a [[keys]] entry of the --config file, instead of --zkey");
  file->excludes(entry);
}

std::string KeyChoice::path(const Config& config, std::string_view command) const {
  if (zkey.empty() == id.empty())
    throw InputError(fmt::format("{}: give either --zkey FILE or --key ID (an id from [[keys]] in the --config file)",
                                 command));
  if (!zkey.empty()) return zkey;
  const KeyEntry* entry = config.find_key(id);
  if (!entry) {
    std::string ids;
    for (const auto& k : config.keys) ids += (ids.empty() ? "" : ", ") + k.id;
    throw InputError(fmt::format("--key {}: no [[keys]] entry with that id in {} (declared: {})", id,
                                 config.source_name(), ids.empty() ? "none" : ids));
  }
  return entry->zkey.string();
}

Config load_config_or_defaults(const std::string& path) {
  return path.empty() ? default_config() : load_config(path);
}

std::vector<NamedFile> config_input(const std::string& path) {
  if (path.empty()) return {};
  return {{"--config", path}};
}

void check_outputs(const Engine& engine, std::vector<NamedFile> inputs, const std::vector<NamedFile>& outputs) {
  inputs.push_back({"(the pacer executable)", "/proc/self/exe"});
  Dl_info framework{};
  if (::dladdr(reinterpret_cast<void*>(&default_config), &framework) != 0 && framework.dli_fname)
    inputs.push_back({"(the framework library)", framework.dli_fname});
  for (const auto& candidate : engine.registry().candidates())
    inputs.push_back({"(a plugin library)", candidate.file.string()});
  pacer::check_outputs(inputs, outputs);
}

void write_text_file(const std::string& path, const std::string& text) {
  FileWriter out(path, std::max<size_t>(text.size(), 1));
  out.write(text.data(), text.size());
  out.commit();
}

std::string human_duration(std::chrono::nanoseconds d) {
  const double ns = static_cast<double>(d.count());
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.0f} us", ns / 1e3);
}

}  // namespace pacer::host
