// `pacer inspect FILE`: what a .zkey, .wtns or .r1cs holds (kind, curve, sizes, sections).
#include <iostream>

#include "common.hpp"
#include "pacer/formats/inspect.hpp"
#include "pacer/logging.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  std::string file;
};

int run_inspect(const Options& options) {
  // Taken by every subcommand and validated the same way: a config that `prove` refuses is refused here.
  const Config config = load_config_or_defaults(options.config);
  const Engine engine(config, make_logger(config.host.log_level));
  std::string summary = inspect_file(options.file);
  if (!summary.empty() && summary.back() != '\n') summary += '\n';
  std::cout << summary;
  return 0;
}

}  // namespace

Subcommand add_inspect_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand("inspect", "Summarise a .zkey, .wtns or .r1cs file (kind, curve, sizes, sections)");
  cmd->add_option("FILE", options->file, "the file to inspect")->required()->check(CLI::ExistingFile);
  add_config_option(*cmd, options->config);
  return {cmd, [options] { return run_inspect(*options); }};
}

}  // namespace pacer::host
