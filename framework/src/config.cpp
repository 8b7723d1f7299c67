#include "pacer/config.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/logging.hpp"
#include "pacer/printable.hpp"
#include "pacer/prover.hpp"
#include "toml_detail.hpp"

namespace pacer {

namespace fs = std::filesystem;
using detail::toml_line_prefix;
using detail::toml_type_name;

const KeyEntry* Config::find_key(const std::string& id) const {
  for (const auto& k : keys)
    if (k.id == id) return &k;
  return nullptr;
}

std::string Config::source_name() const { return source.empty() ? "(built-in defaults)" : source.string(); }

std::string_view release_policy_name(ReleasePolicy p) {
  return p == ReleasePolicy::bounded ? "bounded" : "immediate";
}

Config default_config() { return Config{}; }

bool is_listen_address(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view port = address.substr(colon + 1);
  return !port.empty() && port.size() <= 5 &&
         std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         std::stoi(std::string(port)) <= 65535;
}

namespace {

// The schema name goes into SQL text (it cannot be a bound parameter), so only plain names pass.
bool is_sql_identifier(std::string_view s) {
  if (s.empty() || s.size() > 40 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// Relative paths in a config mean "relative to the config file", not to the current directory.
fs::path resolve(const fs::path& config_dir, const std::string& p) {
  return (fs::path(p).is_absolute() ? fs::path(p) : config_dir / p).lexically_normal();
}

// toml11 reports syntax errors over several lines with an ASCII-art underline; keep the message
// and the underline's comment on one line: "<file>:<line>: <what> (<comment>)".
std::string condense_syntax_error(const toml::syntax_error& e, const std::string& file) {
  std::istringstream lines(e.what());
  std::string line, what, comment;
  while (std::getline(lines, line)) {
    if (what.empty() && line.rfind("[error] ", 0) == 0) {
      what = line.substr(8);
      // "toml::parse_key_value_pair: missing ..." -> "missing ..."
      if (what.rfind("toml::", 0) == 0) {
        const auto colon = what.find(": ");
        if (colon != std::string::npos) what = what.substr(colon + 2);
      }
    }
    for (const char* marker : {"^--- ", "~~~ "}) {
      const auto at = line.find(marker);
      if (at != std::string::npos) comment = line.substr(at + std::string(marker).size());
    }
  }
  if (what.empty()) what = "invalid TOML";
  std::string out = fmt::format("{}:{}: {}", file, e.location().line(), printable(what, 200));
  if (!comment.empty()) out += fmt::format(" ({})", printable(comment, 200));
  return out;
}

void read_plugin_choice(const toml::value& table, const std::string& name, PluginChoice& choice) {
  const Params r(table, "[" + name + "]");
  choice.plugin = r.get_string("plugin", choice.plugin);
  if (choice.plugin.empty()) {
    if (const toml::value* v = r.find("plugin")) r.fail(*v, "plugin", "must name a plugin (see `pacer plugins`)");
    throw InputError(fmt::format("{}[{}] needs plugin = \"...\" (see `pacer plugins`)", toml_line_prefix(table), name));
  }
  choice.params = r.get_table("params", "[" + name + ".params]");
  r.reject_unknown();
}

}  // namespace

Config load_config(const fs::path& path) {
  const std::string file = path.string();
  // Read whole and checked before parsing: no FIFO or device can block or feed it, and no text can
  // overflow toml11's stack or keep it busy for minutes (docs/config.md, "Limits").
  std::string text = RegularFile(file).read_all(detail::kConfigMaxBytes, "config file");
  detail::check_config_limits(text, file);

  toml::value root;
  try {
    std::istringstream in(std::move(text));
    root = toml::parse(in, file);
  } catch (const toml::syntax_error& e) {
    throw InputError(condense_syntax_error(e, file));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: cannot read config: {}", file, printable(e.what(), 200)));
  }
  detail::check_config_integers(root);

  Config cfg;
  cfg.source = path;
  const fs::path dir = fs::absolute(path).parent_path();

  const Params top(root, "top level");
  // Top-level names are tables; say so rather than "unknown key" when one is written as a value.
  auto table_at = [&](const std::string& name) -> const toml::value* {
    const toml::value* t = top.find(name);
    if (t && !t->is_table())
      throw InputError(fmt::format("{}[{}] must be a table, got {}", toml_line_prefix(*t), name, toml_type_name(t->type())));
    return t;
  };

  if (const toml::value* t = table_at("host")) {
    const Params r(*t, "[host]");
    for (const auto& d : r.get_string_array("plugin_dirs", {})) cfg.host.plugin_dirs.push_back(resolve(dir, d));
    cfg.host.log_level = r.get_choice("log_level", cfg.host.log_level, known_log_levels());
    cfg.host.threads = static_cast<unsigned>(r.get_int("threads", 0, 0, 4096));
    // Was a process-wide mallopt; every large buffer now comes from the allocator, and keeping
    // freed memory for reuse is what the pooled allocator does (docs/allocators.md).
    if (const auto it = t->as_table().find("keep_freed_memory"); it != t->as_table().end())
      r.fail(it->second, "keep_freed_memory",
             "was removed: large buffers come from the allocator now; to keep freed memory for reuse, "
             "set [allocator] plugin = \"pooled\" and delete this line");
    cfg.host.verify_proofs = r.get_bool("verify_proofs", cfg.host.verify_proofs);
    cfg.host.check_key_subgroups = r.get_bool("check_key_subgroups", cfg.host.check_key_subgroups);
    r.reject_unknown();
  }
  if (const toml::value* t = table_at("backend")) read_plugin_choice(*t, "backend", cfg.backend);
  if (const toml::value* t = table_at("allocator")) {
    read_plugin_choice(*t, "allocator", cfg.allocator);
    cfg.allocator_given = true;
  }
  if (const toml::value* t = table_at("staging")) {
    cfg.staging = PluginChoice{"", Params(toml::table{}, "[staging.params]")};
    read_plugin_choice(*t, "staging", *cfg.staging);
  }
  if (const toml::value* t = table_at("scheduler")) read_plugin_choice(*t, "scheduler", cfg.scheduler);
  if (const toml::value* t = table_at("pipeline")) {
    const Params r(*t, "[pipeline]");
    // The engine runs at most kMaxJobsInFlight at once: a larger value would be accepted and not honoured.
    cfg.pipeline.jobs_in_flight = static_cast<unsigned>(r.get_int("jobs_in_flight", 1, 1, kMaxJobsInFlight));
    cfg.pipeline.release =
        r.get_choice("release", "immediate", {"immediate", "bounded"}) == "bounded" ? ReleasePolicy::bounded
                                                                                   : ReleasePolicy::immediate;
    r.reject_unknown();
  }
  if (const toml::value* t = table_at("server")) {
    const Params r(*t, "[server]");
    cfg.server.listen = r.get_string("listen", cfg.server.listen);
    if (!is_listen_address(cfg.server.listen))
      r.fail(*r.find("listen"), "listen",
             fmt::format("must be \"host:port\", got \"{}\"", printable(cfg.server.listen)));
    auto& server = cfg.server;
    server.token = r.get_string("token", server.token);
    server.max_body_bytes = static_cast<uint64_t>(r.get_int("max_body_bytes", int64_t(server.max_body_bytes), 64,
                                                            int64_t(1) << 40));
    server.max_queued = static_cast<unsigned>(r.get_int("max_queued", server.max_queued, 1, 1'000'000));
    server.result_ttl_s = static_cast<unsigned>(r.get_int("result_ttl_s", server.result_ttl_s, 1, 30 * 86400));
    server.request_timeout_s =
        static_cast<unsigned>(r.get_int("request_timeout_s", server.request_timeout_s, 1, 3600));
    server.max_wait_s = static_cast<unsigned>(r.get_int("max_wait_s", server.max_wait_s, 0, 3600));
    server.shutdown_grace_s = static_cast<unsigned>(r.get_int("shutdown_grace_s", server.shutdown_grace_s, 0, 86400));
    server.max_connections = static_cast<unsigned>(r.get_int("max_connections", server.max_connections, 1, 100'000));
    server.allow_no_token = r.get_bool("allow_no_token", server.allow_no_token);
    server.access_log = r.get_bool("access_log", server.access_log);
    r.reject_unknown();
  }
  if (const toml::value* t = table_at("queue")) {
    const Params r(*t, "[queue]");
    auto& q = cfg.queue;
    q.url = r.get_string("url", "");
    if (q.url.empty() || q.url.size() > 4096)
      r.fail(r.find("url") ? *r.find("url") : *t, "url",
             "must be a PostgreSQL connection string of at most 4096 bytes (postgresql://user@host/db or "
             "\"host=... dbname=...\")");
    q.schema = r.get_string("schema", q.schema);
    if (!is_sql_identifier(q.schema))
      r.fail(*r.find("schema"), "schema",
             fmt::format("must be a lowercase SQL name (a-z, 0-9, _; at most 40), got \"{}\"", printable(q.schema, 64)));
    q.lease_s = static_cast<unsigned>(r.get_int("lease_s", q.lease_s, 2, 86400));
    q.max_attempts = static_cast<unsigned>(r.get_int("max_attempts", q.max_attempts, 1, 100));
    q.retention_s = static_cast<unsigned>(r.get_int("retention_s", q.retention_s, 1, 365 * 86400));
    q.prove_locally = r.get_bool("prove_locally", q.prove_locally);
    q.verify_proofs = r.get_bool("verify_proofs", q.verify_proofs);
    r.reject_unknown();
  }
  if (const toml::value* t = table_at("witness")) {
    const Params r(*t, "[witness]");
    if (const std::string dir_name = r.get_string("cache_dir", ""); !dir_name.empty())
      cfg.witness.cache_dir = resolve(dir, dir_name);
    r.reject_unknown();
  }
  if (const toml::value* keys = top.find("keys")) {
    if (!keys->is_array())
      throw InputError(fmt::format("{}keys must be an array of tables ([[keys]]), got {}", toml_line_prefix(*keys),
                                   toml_type_name(keys->type())));
    size_t n = 0;
    for (const auto& entry : keys->as_array()) {
      ++n;
      const std::string section = fmt::format("[[keys]] #{}", n);
      if (!entry.is_table())
        throw InputError(fmt::format("{}{} must be a table, got {}", toml_line_prefix(entry), section,
                                     toml_type_name(entry.type())));
      const Params r(entry, section);
      KeyEntry k;
      k.id = r.get_string("id", "");
      const std::string zkey = r.get_string("zkey", "");
      const std::string wasm = r.get_string("wasm", ""), circuit_cpp = r.get_string("circuit_cpp", "");
      r.reject_unknown();
      if (!wasm.empty() && !circuit_cpp.empty())
        throw InputError(fmt::format("{}{} gives both wasm and circuit_cpp: one witness generator per key",
                                     toml_line_prefix(*r.find("wasm")), section));
      if (!wasm.empty()) k.wasm = resolve(dir, wasm);
      if (!circuit_cpp.empty()) k.circuit_cpp = resolve(dir, circuit_cpp);
      if (k.id.empty()) throw InputError(fmt::format("{}{} needs id = \"...\"", toml_line_prefix(entry), section));
      if (zkey.empty()) throw InputError(fmt::format("{}{} needs zkey = \"path/to/circuit.zkey\"", toml_line_prefix(entry), section));
      if (cfg.find_key(k.id))
        throw InputError(fmt::format("{}{} id \"{}\" is already used by another [[keys]] entry",
                                     toml_line_prefix(*r.find("id")), section, printable(k.id)));
      k.zkey = resolve(dir, zkey);
      cfg.keys.push_back(std::move(k));
    }
  }
  // Top-level names are tables: an unknown one is reported as such.
  if (const auto* first = top.first_unknown()) {
    const std::string at = toml_line_prefix(first->second);
    if (first->second.is_table())
      throw InputError(fmt::format("{}unknown table [{}] (known: {})", at, printable(first->first), top.known_keys()));
    throw InputError(fmt::format("{}unknown key '{}' at top level (known tables: {})", at, printable(first->first),
                                 top.known_keys()));
  }
  return cfg;
}

}  // namespace pacer
