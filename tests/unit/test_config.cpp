// The strict config loader and Params: defaults, path resolution, and one-line errors that name
// the file, the line and the key (unknown keys, wrong types, bad values, bad TOML syntax).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "pacer/config.hpp"
#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "pacer/params.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

// A fresh folder per test case, removed afterwards.
struct ScratchDir {
  fs::path dir;
  ScratchDir() {
    static int counter = 0;
    dir = fs::temp_directory_path() / ("pacer-test-config-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Writes `text` to <dir>/<name> and returns the path.
  fs::path write(const std::string& text, const std::string& name = "config.toml") const {
    const fs::path p = dir / name;
    std::ofstream(p) << text;
    return p;
  }
};

// The message of the InputError that load_config throws for `text`, with the file path replaced
// by "config.toml" so expectations read like what a user sees.
std::string load_error(const std::string& text) {
  ScratchDir scratch;
  const fs::path p = scratch.write(text);
  try {
    pacer::load_config(p);
  } catch (const pacer::InputError& e) {
    std::string msg = e.what();
    const std::string full = p.string();
    for (auto at = msg.find(full); at != std::string::npos; at = msg.find(full)) msg.replace(at, full.size(), "config.toml");
    return msg;
  }
  FAIL("no InputError for:\n" << text);
  return {};
}

void check_defaults(const pacer::Config& c) {
  CHECK(c.host.plugin_dirs.empty());
  CHECK(c.host.log_level == "info");
  CHECK(c.host.threads == 0);
  CHECK_FALSE(c.host.verify_proofs);
  CHECK(c.host.check_key_subgroups);
  CHECK(c.backend.plugin == "cpu");
  CHECK(c.allocator.plugin == "pooled");
  CHECK(c.scheduler.plugin == "greedy");
  CHECK(c.pipeline.jobs_in_flight == 1);
  CHECK(c.pipeline.release == pacer::ReleasePolicy::immediate);
  CHECK(c.server.listen == "127.0.0.1:9820");
  CHECK(c.keys.empty());
}

}  // namespace

using pacer::load_config;

TEST_CASE("config: defaults, from code, from an empty file and from examples/configs/default.toml", "[config]") {
  check_defaults(pacer::default_config());
  CHECK(pacer::default_config().source_name() == "(built-in defaults)");

  ScratchDir scratch;
  check_defaults(load_config(scratch.write("# nothing set\n")));

  // The shipped default.toml spells out every key with its default value.
  const auto shipped = load_config(fs::path(PACER_SOURCE_DIR) / "examples/configs/default.toml");
  CHECK(shipped.host.log_level == "info");
  CHECK(shipped.host.threads == 0);
  CHECK(shipped.backend.plugin == "cpu");
  CHECK(shipped.allocator.plugin == "pooled");
  CHECK(shipped.scheduler.plugin == "greedy");
  CHECK(shipped.pipeline.jobs_in_flight == 1);
  CHECK(shipped.pipeline.release == pacer::ReleasePolicy::immediate);
  CHECK(shipped.server.listen == "127.0.0.1:9820");
  CHECK(shipped.server.token.empty());
  CHECK(shipped.server.max_queued == 1024);
  CHECK(shipped.server.result_ttl_s == 600);
}

TEST_CASE("config: every key is read, relative paths are resolved against the config's folder", "[config]") {
  ScratchDir scratch;
  fs::create_directories(scratch.dir / "conf");
  const auto cfg = load_config(scratch.write(R"(
[host]
plugin_dirs = ["plugins", "/opt/pacer/plugins", "../elsewhere"]
log_level = "debug"
threads = 6
verify_proofs = true
check_key_subgroups = false

[backend]
plugin = "cuda"
params = { devices = 2 }

[allocator]
plugin = "thp"
[allocator.params]
prefault = true

[scheduler]
plugin = "throttled"
params = { membw_tokens = 2 }

[pipeline]
jobs_in_flight = 4
release = "bounded"

[server]
listen = "0.0.0.0:7000"
token = "t0ken"
max_body_bytes = 1000
max_queued = 7
result_ttl_s = 60
request_timeout_s = 5
max_wait_s = 9
shutdown_grace_s = 0
max_connections = 10

[witness]
cache_dir = "cache"

[[keys]]
id = "poseidon"
zkey = "keys/poseidon.zkey"
wasm = "keys/poseidon.wasm"

[[keys]]
id = "abs"
zkey = "/data/abs.zkey"
circuit_cpp = "/data/abs_cpp"
)",
                                             "conf/config.toml"));
  const fs::path conf = fs::absolute(scratch.dir / "conf");
  REQUIRE(cfg.host.plugin_dirs.size() == 3);
  CHECK(cfg.host.plugin_dirs[0] == conf / "plugins");
  CHECK(cfg.host.plugin_dirs[1] == "/opt/pacer/plugins");
  CHECK(cfg.host.plugin_dirs[2] == (conf / "../elsewhere").lexically_normal());
  CHECK(cfg.host.log_level == "debug");
  CHECK(cfg.host.threads == 6);
  CHECK(cfg.host.verify_proofs);
  CHECK_FALSE(cfg.host.check_key_subgroups);
  CHECK(cfg.backend.plugin == "cuda");
  CHECK(cfg.backend.params.get_int("devices", 0) == 2);
  CHECK(cfg.allocator.plugin == "thp");
  CHECK(cfg.allocator.params.get_bool("prefault", false));
  CHECK(cfg.scheduler.params.get_int("membw_tokens", 0) == 2);
  CHECK(cfg.pipeline.jobs_in_flight == 4);
  CHECK(cfg.pipeline.release == pacer::ReleasePolicy::bounded);
  CHECK(cfg.server.listen == "0.0.0.0:7000");
  CHECK(cfg.server.token == "t0ken");
  CHECK(cfg.server.max_body_bytes == 1000);
  CHECK(cfg.server.max_queued == 7);
  CHECK(cfg.server.result_ttl_s == 60);
  CHECK(cfg.server.request_timeout_s == 5);
  CHECK(cfg.server.max_wait_s == 9);
  CHECK(cfg.server.shutdown_grace_s == 0);
  CHECK(cfg.server.max_connections == 10);
  REQUIRE(cfg.keys.size() == 2);
  REQUIRE(cfg.find_key("poseidon") != nullptr);
  CHECK(cfg.find_key("poseidon")->zkey == conf / "keys/poseidon.zkey");
  CHECK(cfg.find_key("abs")->zkey == "/data/abs.zkey");
  CHECK(cfg.witness.cache_dir == conf / "cache");
  CHECK(cfg.find_key("poseidon")->wasm == conf / "keys/poseidon.wasm");
  CHECK(cfg.find_key("poseidon")->circuit_cpp.empty());
  CHECK(cfg.find_key("abs")->circuit_cpp == "/data/abs_cpp");
  CHECK(cfg.find_key("abs")->wasm.empty());
  CHECK(cfg.find_key("nope") == nullptr);
}

TEST_CASE("config: unknown tables and keys name the key, the line and what is known", "[config]") {
  CHECK_THAT(load_error("[host]\nlog_level = \"info\"\nthread = 4\n"),
             Equals("config.toml:3: unknown key 'thread' in [host] (known: check_key_subgroups, log_level, "
                    "plugin_dirs, threads, verify_proofs)"));
  CHECK_THAT(load_error("\n[hots]\nthreads = 4\n"),
             Equals("config.toml:2: unknown table [hots] (known: allocator, backend, host, keys, pipeline, "
                    "queue, scheduler, server, staging, witness)"));
  CHECK_THAT(load_error("threads = 4\n"), Contains("config.toml:1: unknown key 'threads' at top level"));
  CHECK_THAT(load_error("[backend]\nplugin = \"cpu\"\nparam = {}\n"),
             Equals("config.toml:3: unknown key 'param' in [backend] (known: params, plugin)"));
  CHECK_THAT(load_error("[[keys]]\nid = \"a\"\nzkey = \"a.zkey\"\npath = \"x\"\n"),
             Equals("config.toml:4: unknown key 'path' in [[keys]] #1 (known: circuit_cpp, id, wasm, zkey)"));
  CHECK_THAT(load_error("[[keys]]\nid = \"a\"\nzkey = \"a.zkey\"\nwasm = \"a.wasm\"\ncircuit_cpp = \"a_cpp\"\n"),
             Equals("config.toml:4: [[keys]] #1 gives both wasm and circuit_cpp: one witness generator per key"));
  CHECK_THAT(load_error("[witness]\ncache = \"x\"\n"),
             Equals("config.toml:2: unknown key 'cache' in [witness] (known: cache_dir)"));
  // Several strays: the first in the file is reported, whatever the hash order.
  CHECK_THAT(load_error("[pipeline]\nzz = 1\naa = 2\nbb = 3\n"), Contains("config.toml:2: unknown key 'zz'"));
}

TEST_CASE("config: wrong types and bad values are one-line errors naming key and line", "[config]") {
  CHECK_THAT(load_error("[host]\nthreads = \"4\"\n"),
             Equals("config.toml:2: [host] threads must be an integer, got string"));
  CHECK_THAT(load_error("[host]\nkeep_freed_memory = true\n"),
             Equals("config.toml:2: [host] keep_freed_memory was removed: large buffers come from the allocator now; "
                    "to keep freed memory for reuse, set [allocator] plugin = \"pooled\" and delete this line"));
  CHECK_THAT(load_error("[host]\nplugin_dirs = \"lib\"\n"),
             Equals("config.toml:2: [host] plugin_dirs must be an array of strings, got string"));
  CHECK_THAT(load_error("[host]\nplugin_dirs = [\"a\", 3]\n"),
             Equals("config.toml:2: [host] plugin_dirs must hold strings only, got integer"));
  CHECK_THAT(load_error("[host]\nthreads = -1\n"),
             Equals("config.toml:2: [host] threads must be between 0 and 4096, got -1"));
  CHECK_THAT(load_error("[host]\nlog_level = \"loud\"\n"),
             Equals("config.toml:2: [host] log_level must be one of trace, debug, info, warn, error, off, got \"loud\""));
  CHECK_THAT(load_error("[backend]\nplugin = 3\n"), Equals("config.toml:2: [backend] plugin must be a string, got integer"));
  CHECK_THAT(load_error("[backend]\nplugin = \"\"\n"), Contains("config.toml:2: [backend] plugin must name a plugin"));
  CHECK_THAT(load_error("[scheduler]\nparams = 5\n"),
             Equals("config.toml:2: [scheduler] params must be a table, got integer"));
  CHECK_THAT(load_error("\n\nbackend = \"cpu\"\n"), Equals("config.toml:3: [backend] must be a table, got string"));
  CHECK_THAT(load_error("[pipeline]\njobs_in_flight = 0\n"),
             Equals("config.toml:2: [pipeline] jobs_in_flight must be between 1 and 256, got 0"));
  CHECK_THAT(load_error("[pipeline]\nrelease = \"lazy\"\n"),
             Equals("config.toml:2: [pipeline] release must be one of immediate, bounded, got \"lazy\""));
  CHECK_THAT(load_error("[server]\nlisten = \"9820\"\n"),
             Equals("config.toml:2: [server] listen must be \"host:port\", got \"9820\""));
  CHECK_THAT(load_error("[server]\nlisten = \"localhost:99999\"\n"), Contains("config.toml:2: [server] listen"));
  CHECK_THAT(load_error("[server]\nmax_queued = 0\n"),
             Equals("config.toml:2: [server] max_queued must be between 1 and 1000000, got 0"));
  CHECK_THAT(load_error("[server]\ntoken = 5\n"), Equals("config.toml:2: [server] token must be a string, got integer"));
  CHECK_THAT(load_error("[server]\nport = 5\n"), Contains("config.toml:2: unknown key 'port' in [server] (known: access_log, allow_no_token, listen, "));
  CHECK_THAT(load_error("[keys]\nid = \"a\"\n"), Contains("config.toml:1: keys must be an array of tables ([[keys]])"));
  CHECK_THAT(load_error("[[keys]]\nid = \"a\"\n"), Equals("config.toml:1: [[keys]] #1 needs zkey = \"path/to/circuit.zkey\""));
  CHECK_THAT(load_error("[[keys]]\nzkey = \"a\"\n"), Equals("config.toml:1: [[keys]] #1 needs id = \"...\""));
  CHECK_THAT(load_error("[[keys]]\nid = \"a\"\nzkey = \"a\"\n[[keys]]\nid = \"a\"\nzkey = \"b\"\n"),
             Equals("config.toml:5: [[keys]] #2 id \"a\" is already used by another [[keys]] entry"));
}

TEST_CASE("config: bad TOML syntax is condensed to one line with file and line", "[config]") {
  const std::string missing_value = load_error("[host]\nthreads = \n");
  CHECK_THAT(missing_value, Contains("config.toml:2: "));
  CHECK_THAT(missing_value, Contains("missing value"));
  CHECK(missing_value.find('\n') == std::string::npos);

  const std::string twice = load_error("[host]\nthreads = 1\nthreads = 2\n");
  CHECK_THAT(twice, Contains("config.toml:3: "));
  CHECK_THAT(twice, Contains("already exists"));
  CHECK(twice.find('\n') == std::string::npos);

  const std::string header = load_error("[host\n");
  CHECK_THAT(header, Contains("config.toml:1: "));
  CHECK(header.find('\n') == std::string::npos);
  CHECK(header.find("[error]") == std::string::npos);
}

TEST_CASE("config: a missing or unreadable file is an InputError naming it", "[config]") {
  CHECK_THROWS_AS(load_config("/nonexistent/pacer/config.toml"), pacer::InputError);
  CHECK_THROWS_WITH(load_config("/nonexistent/pacer/config.toml"),
                    Contains("/nonexistent/pacer/config.toml: cannot open"));
  ScratchDir scratch;
  CHECK_THROWS_WITH(load_config(scratch.dir), Contains("is a folder, not a regular file"));
}

TEST_CASE("config: Params reads typed values, names key and line on the wrong type, rejects unknown keys",
          "[config]") {
  ScratchDir scratch;
  const auto cfg = load_config(scratch.write(R"([backend]
plugin = "cpu"

[backend.params]
threads = 4
ratio = 2
scale = 0.5
name = "x"
fast = true
thread = 8
)"));
  const pacer::Params& p = cfg.backend.params;
  CHECK(p.where() == "[backend.params]");
  CHECK(p.get_int("threads", 0) == 4);
  CHECK(p.get_double("ratio", 0) == 2.0);  // an integer is a fine double
  CHECK(p.get_double("scale", 0) == 0.5);
  CHECK(p.get_string("name", "") == "x");
  CHECK(p.get_bool("fast", false));
  CHECK(p.get_int("absent", 17) == 17);
  CHECK(p.has("name"));
  CHECK_FALSE(p.has("absent"));
  const std::string file = (scratch.dir / "config.toml").string();
  CHECK_THROWS_WITH(p.reject_unknown(),
                    Equals(file + ":10: unknown key 'thread' in [backend.params] (known: absent, fast, name, ratio, "
                                  "scale, threads)"));
  CHECK_THROWS_WITH(p.get_int("name", 0), Equals(file + ":8: [backend.params] name must be an integer, got string"));
  CHECK_THROWS_WITH(p.get_bool("threads", false),
                    Equals(file + ":5: [backend.params] threads must be true or false, got integer"));
  CHECK_THROWS_WITH(p.get_string("scale", ""), Equals(file + ":7: [backend.params] scale must be a string, got float"));
  CHECK_THROWS_AS(p.get_double("name", 0), pacer::InputError);
  // The range and choice reads of the config's own tables serve plugins too.
  CHECK(p.get_int("threads", 0, 1, 8) == 4);
  CHECK_THROWS_WITH(p.get_int("threads", 0, 1, 2),
                    Equals(file + ":5: [backend.params] threads must be between 1 and 2, got 4"));
  CHECK(p.get_choice("name", "y", {"x", "y"}) == "x");
  CHECK_THROWS_WITH(p.get_choice("name", "y", {"y", "z"}),
                    Equals(file + ":8: [backend.params] name must be one of y, z, got \"x\""));
  (void)p.get_int("thread", 0);
  CHECK_NOTHROW(p.reject_unknown());

  // No params at all: every default, and nothing to reject.
  const pacer::Params empty = pacer::default_config().scheduler.params;
  CHECK(empty.get_int("membw_tokens", 3) == 3);
  CHECK_NOTHROW(empty.reject_unknown());

  // A table built in code has no file and line; messages still name the key.
  const pacer::Params coded(toml::table{{"prefualt", true}}, "[allocator.params]");
  CHECK_THROWS_WITH(coded.reject_unknown(),
                    Equals("unknown key 'prefualt' in [allocator.params] (this plugin takes no params)"));
  CHECK_THROWS_AS(pacer::Params(toml::value(3), "[x.params]"), pacer::InputError);
}

TEST_CASE("config: log levels parse strictly and make a stderr logger", "[config]") {
  CHECK(pacer::parse_log_level("trace") == spdlog::level::trace);
  CHECK(pacer::parse_log_level("warn") == spdlog::level::warn);
  CHECK(pacer::parse_log_level("error") == spdlog::level::err);
  CHECK(pacer::parse_log_level("off") == spdlog::level::off);
  CHECK_THROWS_AS(pacer::parse_log_level("loud"), pacer::InputError);
  CHECK_THROWS_WITH(pacer::parse_log_level("WARN"),
                    Equals("unknown log level 'WARN' (use trace, debug, info, warn, error or off)"));
  const auto log = pacer::make_logger("debug");
  REQUIRE(log);
  CHECK(log->level() == spdlog::level::debug);
  CHECK(pacer::make_logger("info") != log);  // not shared through spdlog's registry: no name clash
}

TEST_CASE("config: Params reads an array of integers and names the key when an item is not one", "[config]") {
  ScratchDir scratch;
  const auto cfg = load_config(scratch.write("[backend.params]\ndevices = [0, 3]\nbad = [1, \"x\"]\nnot_array = 2\n"));
  const pacer::Params& p = cfg.backend.params;
  CHECK(p.get_int_array("devices", {}) == std::vector<int64_t>{0, 3});
  CHECK(p.get_int_array("absent", {7}) == std::vector<int64_t>{7});
  const std::string file = (scratch.dir / "config.toml").string();
  CHECK_THROWS_WITH(p.get_int_array("bad", {}),
                    Equals(file + ":3: [backend.params] bad must be an array of integers, got string"));
  CHECK_THROWS_WITH(p.get_int_array("not_array", {}),
                    Equals(file + ":4: [backend.params] not_array must be an array of integers, got integer"));
}
