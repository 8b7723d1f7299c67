#include "pacer/config.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/logging.hpp"
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

// Reads one table of the config: every read records the key, finish() rejects the rest.
// `section` is how the table is written in messages: "[host]", "[[keys]] #2", "top level".
class TableReader {
 public:
  TableReader(const toml::value& table, std::string section, bool top_level = false)
      : table_(table), section_(std::move(section)), top_level_(top_level) {}

  const toml::value* find(const std::string& key) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
    const auto& t = table_.as_table();
    const auto it = t.find(key);
    return it == t.end() ? nullptr : &it->second;
  }

  [[noreturn]] void fail(const toml::value& v, const std::string& key, const std::string& what) const {
    throw InputError(fmt::format("{}{} {} {}", toml_line_prefix(v), section_, key, what));
  }
  [[noreturn]] void wrong_type(const toml::value& v, const std::string& key, const char* wanted) const {
    fail(v, key, fmt::format("must be {}, got {}", wanted, toml_type_name(v.type())));
  }

  std::string get_string(const std::string& key, std::string def) {
    const toml::value* v = find(key);
    if (!v) return def;
    if (!v->is_string()) wrong_type(*v, key, "a string");
    return v->as_string().str;
  }

  bool get_bool(const std::string& key, bool def) {
    const toml::value* v = find(key);
    if (!v) return def;
    if (!v->is_boolean()) wrong_type(*v, key, "true or false");
    return v->as_boolean();
  }

  // Integers are range-checked here so no caller narrows a negative or huge value silently.
  int64_t get_int(const std::string& key, int64_t def, int64_t min, int64_t max) {
    const toml::value* v = find(key);
    if (!v) return def;
    if (!v->is_integer()) wrong_type(*v, key, "an integer");
    const int64_t x = v->as_integer();
    if (x < min || x > max) fail(*v, key, fmt::format("must be between {} and {}, got {}", min, max, x));
    return x;
  }

  // A string that must be one of `allowed`.
  std::string get_choice(const std::string& key, std::string def, const std::vector<std::string>& allowed) {
    const toml::value* v = find(key);
    if (!v) return def;
    if (!v->is_string()) wrong_type(*v, key, "a string");
    const std::string s = v->as_string().str;
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
      fail(*v, key, fmt::format("must be one of {}, got \"{}\"", fmt::join(allowed, ", "), s));
    return s;
  }

  std::vector<std::string> get_string_array(const std::string& key) {
    const toml::value* v = find(key);
    if (!v) return {};
    if (!v->is_array()) wrong_type(*v, key, "an array of strings");
    std::vector<std::string> out;
    for (const auto& item : v->as_array()) {
      if (!item.is_string()) fail(item, key, fmt::format("must hold strings only, got {}", toml_type_name(item.type())));
      out.push_back(item.as_string().str);
    }
    return out;
  }

  // A plugin's params table: kept whole, the plugin reads it through Params.
  Params get_params(const std::string& key, const std::string& params_section) {
    const toml::value* v = find(key);
    if (!v) return Params(toml::table{}, params_section);
    if (!v->is_table()) wrong_type(*v, key, "a table");
    return Params(*v, params_section);
  }

  // The first unknown key in file order, naming what is allowed instead.
  void finish() const {
    const std::pair<const std::string, toml::value>* first = nullptr;
    for (const auto& entry : table_.as_table()) {
      if (std::find(known_.begin(), known_.end(), entry.first) != known_.end()) continue;
      if (!first || detail::toml_offset(entry.second) < detail::toml_offset(first->second)) first = &entry;
    }
    if (!first) return;
    const std::string at = toml_line_prefix(first->second);
    if (top_level_ && first->second.is_table())
      throw InputError(fmt::format("{}unknown table [{}] (known: {})", at, first->first, fmt::join(known_, ", ")));
    if (top_level_)
      throw InputError(fmt::format("{}unknown key '{}' at top level (known tables: {})", at, first->first,
                                   fmt::join(known_, ", ")));
    throw InputError(fmt::format("{}unknown key '{}' in {} (known: {})", at, first->first, section_,
                                 fmt::join(known_, ", ")));
  }

 private:
  const toml::value& table_;
  std::string section_;
  bool top_level_;
  std::vector<std::string> known_;
};

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
  std::string out = fmt::format("{}:{}: {}", file, e.location().line(), what);
  if (!comment.empty()) out += fmt::format(" ({})", comment);
  return out;
}

void read_plugin_choice(const toml::value& table, const std::string& name, PluginChoice& choice) {
  TableReader r(table, "[" + name + "]");
  choice.plugin = r.get_string("plugin", choice.plugin);
  if (choice.plugin.empty()) {
    if (const toml::value* v = r.find("plugin")) r.fail(*v, "plugin", "must name a plugin (see `pacer plugins`)");
    throw InputError(fmt::format("{}[{}] needs plugin = \"...\" (see `pacer plugins`)", toml_line_prefix(table), name));
  }
  choice.params = r.get_params("params", "[" + name + ".params]");
  r.finish();
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
    throw InputError(fmt::format("{}: cannot read config: {}", file, e.what()));
  }

  Config cfg;
  cfg.source = path;
  const fs::path dir = fs::absolute(path).parent_path();

  TableReader top(root, "top level", /*top_level=*/true);
  // Top-level names are tables; say so rather than "unknown key" when one is written as a value.
  auto table_at = [&](const std::string& name) -> const toml::value* {
    const toml::value* t = top.find(name);
    if (t && !t->is_table())
      throw InputError(fmt::format("{}[{}] must be a table, got {}", toml_line_prefix(*t), name, toml_type_name(t->type())));
    return t;
  };

  if (const toml::value* t = table_at("host")) {
    TableReader r(*t, "[host]");
    for (const auto& d : r.get_string_array("plugin_dirs")) cfg.host.plugin_dirs.push_back(resolve(dir, d));
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
    r.finish();
  }
  if (const toml::value* t = table_at("backend")) read_plugin_choice(*t, "backend", cfg.backend);
  if (const toml::value* t = table_at("allocator")) read_plugin_choice(*t, "allocator", cfg.allocator);
  if (const toml::value* t = table_at("staging")) {
    cfg.staging = PluginChoice{"", Params(toml::table{}, "[staging.params]")};
    read_plugin_choice(*t, "staging", *cfg.staging);
  }
  if (const toml::value* t = table_at("scheduler")) read_plugin_choice(*t, "scheduler", cfg.scheduler);
  if (const toml::value* t = table_at("pipeline")) {
    TableReader r(*t, "[pipeline]");
    cfg.pipeline.jobs_in_flight = static_cast<unsigned>(r.get_int("jobs_in_flight", 1, 1, 4096));
    cfg.pipeline.release =
        r.get_choice("release", "immediate", {"immediate", "bounded"}) == "bounded" ? ReleasePolicy::bounded
                                                                                   : ReleasePolicy::immediate;
    r.finish();
  }
  if (const toml::value* t = table_at("server")) {
    TableReader r(*t, "[server]");
    cfg.server.listen = r.get_string("listen", cfg.server.listen);
    if (!is_listen_address(cfg.server.listen))
      r.fail(*r.find("listen"), "listen", fmt::format("must be \"host:port\", got \"{}\"", cfg.server.listen));
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
    r.finish();
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
      TableReader r(entry, section);
      KeyEntry k;
      k.id = r.get_string("id", "");
      const std::string zkey = r.get_string("zkey", "");
      r.finish();
      if (k.id.empty()) throw InputError(fmt::format("{}{} needs id = \"...\"", toml_line_prefix(entry), section));
      if (zkey.empty()) throw InputError(fmt::format("{}{} needs zkey = \"path/to/circuit.zkey\"", toml_line_prefix(entry), section));
      if (cfg.find_key(k.id))
        throw InputError(fmt::format("{}{} id \"{}\" is already used by another [[keys]] entry",
                                     toml_line_prefix(*r.find("id")), section, k.id));
      k.zkey = resolve(dir, zkey);
      cfg.keys.push_back(std::move(k));
    }
  }
  top.finish();
  return cfg;
}

}  // namespace pacer
