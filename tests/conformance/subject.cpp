// The backend under test, made through the plugin registry as the host makes it.
#include "subject.hpp"

#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "pacer/config.hpp"
#include "pacer/logging.hpp"
#include "pacer/params.hpp"

namespace pacer::conformance {

namespace {
std::unique_ptr<Subject> made;
}

Subject& subject() { return *made; }

void make_subject(const std::string& backend, const std::string& params_toml) {
  auto s = std::make_unique<Subject>();
  s->name = backend;
  s->host.log = make_logger("warn");
  s->host.pool = &s->pool;
  // $PACER_PLUGIN_PATH and lib/pacer beside the binary first (a packed copy on the GPU machine),
  // then the build tree this binary came from.
  auto path = PluginRegistry::search_path_for(Config{});
  path.emplace_back(PACER_PLUGIN_BUILD_DIR);
  s->registry = std::make_unique<PluginRegistry>(path);
  s->allocator = s->registry->create_allocator("plain", Params(toml::table{}, "[allocator.params]"), s->host);
  s->host.allocator = s->host.staging = s->allocator.get();
  std::istringstream text(params_toml);
  const toml::value table = params_toml.empty() ? toml::value(toml::table{}) : toml::parse(text, "--params");
  s->backend = s->registry->create_backend(backend, Params(table, "[backend.params]"), s->host);
  if (const char* v = std::getenv("PACER_CONFORMANCE_MAX_LOG")) s->max_log = std::strtoul(v, nullptr, 10);
  made = std::move(s);
}

std::string hex(const PointBytes& p) {
  std::string out;
  for (size_t i = 0; i < p.size; ++i) out += fmt::format("{:02x}", unsigned(p.data[i]));
  return out;
}

}  // namespace pacer::conformance
