// `pacer plugins`: every library found on the search path, loaded or refused (and why), the
// search path itself, and whether the config's choices are among the loaded plugins.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
};

// Which interface a library speaks: C/<major.minor> (pacer/plugin_abi.h), C++ (PACER_PLUGIN), or "-"
// when that could not be read.
std::string abi_column(const PluginCandidate& c) {
  if (c.c_abi) return c.loaded || c.abi ? fmt::format("C/{}.{}", c.abi, c.abi_minor) : "C";
  return c.loaded || c.abi ? "C++" : "-";
}

int run_plugins(const Options& options) {
  const Config config = load_config_or_defaults(options.config);
  PluginRegistry registry(PluginRegistry::search_path_for(config));
  registry.load_all();  // each one's status and version, not only what a command would ask for

  // Columns: kind, name, version, ABI, file, status. Status goes last: a refusal reason is long.
  struct Row {
    std::string kind, name, version, abi, file, status;
  };
  std::vector<Row> rows;
  for (const auto& c : registry.candidates()) {
    rows.push_back({c.kind ? std::string(kind_name(*c.kind)) : "-", c.name.empty() ? "-" : c.name,
                    c.version.empty() ? "-" : c.version, abi_column(c), c.file.string(),
                    c.loaded ? "loaded" : "refused: " + c.refusal});
  }
  const Row header{"KIND", "NAME", "VERSION", "ABI", "FILE", "STATUS"};
  size_t w_kind = header.kind.size(), w_name = header.name.size(), w_version = header.version.size(),
         w_abi = header.abi.size(), w_file = header.file.size();
  for (const auto& r : rows) {
    w_kind = std::max(w_kind, r.kind.size());
    w_name = std::max(w_name, r.name.size());
    w_version = std::max(w_version, r.version.size());
    w_abi = std::max(w_abi, r.abi.size());
    w_file = std::max(w_file, r.file.size());
  }
  auto print_row = [&](const Row& r) {
    std::cout << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.kind, w_kind, r.name, w_name, r.version,
                             w_version, r.abi, w_abi, r.file, w_file, r.status);
  };
  print_row(header);
  for (const auto& r : rows) print_row(r);
  if (rows.empty()) std::cout << "(no lib*.so found on the search path)\n";

  std::cout << "\nsearch path (first found wins; [host] plugin_dirs, $PACER_PLUGIN_PATH, install dir, "
               "next to the executable):\n";
  for (const auto& dir : registry.search_path()) {
    std::error_code ec;
    std::cout << "  " << dir.string() << (std::filesystem::is_directory(dir, ec) ? "" : "  (missing)") << "\n";
  }

  std::cout << "\nconfig " << config.source_name() << " selects:\n";
  const std::pair<PluginKind, const PluginChoice*> choices[] = {{PluginKind::backend, &config.backend},
                                                                {PluginKind::allocator, &config.allocator},
                                                                {PluginKind::scheduler, &config.scheduler}};
  for (const auto& [kind, choice] : choices) {
    const auto names = registry.available(kind);
    const bool found = std::find(names.begin(), names.end(), choice->plugin) != names.end();
    std::cout << fmt::format("  {:<9}  {:<{}}  {}\n", kind_name(kind), choice->plugin, w_name,
                             found ? "ok" : "NOT AVAILABLE");
  }
  // The listing is what this command is for, so it comes first; then the config is validated as
  // every subcommand validates it (plugins made with their params), and a bad one is exit 2.
  std::cout.flush();
  const Engine engine(config, make_logger(config.host.log_level));
  return 0;
}

}  // namespace

Subcommand add_plugins_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand("plugins", "List every plugin found on the search path, loaded or refused (and why)");
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_plugins(*options); }};
}

}  // namespace pacer::host
