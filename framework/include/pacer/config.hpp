#pragma once
// The one TOML file that selects plugins and tunes the host (docs/config.md). Strict: every
// key has a default, and an unknown table/key, a wrong type or a bad value is an InputError that
// names the file, the line and the key. Relative paths are resolved against the config's folder,
// so a config works from any current directory.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pacer/allocator.hpp"
#include "pacer/params.hpp"

namespace pacer {

// [backend], [allocator], [scheduler]: which plugin, and its params table (read by the plugin).
struct PluginChoice {
  std::string plugin;
  Params params;
};

// One [[keys]] entry: a proving key the host may be asked for by id, and optionally the
// circuit's witness generator, for proofs from input.json (docs/fullprove.md).
struct KeyEntry {
  std::string id;
  std::filesystem::path zkey;  // absolute (resolved against the config's folder)
  std::filesystem::path wasm;         // circom's .wasm; empty: none
  std::filesystem::path circuit_cpp;  // or circom's --c folder; empty: none (never both)
};

struct Config {
  // The file this came from; empty for default_config(). Used in messages.
  std::filesystem::path source;

  struct Host {
    std::vector<std::filesystem::path> plugin_dirs;  // searched first, absolute
    std::string log_level = "info";                   // trace, debug, info, warn, error, off
    unsigned threads = 0;                             // CPU pool size; 0 = all cores
    bool verify_proofs = false;                       // every proof verified before it is returned
    bool check_key_subgroups = true;                  // every key point's subgroup checked at load
  } host;

  PluginChoice backend{"cpu", Params(toml::table{}, "[backend.params]")};
  // pooled: after the first proof no buffer faults or is unmapped again (docs/allocators.md).
  PluginChoice allocator{"pooled", Params(toml::table{}, "[allocator.params]")};
  bool allocator_given = false;  // the file has an [allocator] table (a one-shot CLI proof may pick otherwise)
  PluginChoice scheduler{"greedy", Params(toml::table{}, "[scheduler.params]")};
  // [staging]: the allocator for buffers a backend copies to a device (e.g. "cuda_pinned"); when
  // absent, the [allocator] serves them too.
  std::optional<PluginChoice> staging;

  struct Pipeline {
    unsigned jobs_in_flight = 1;  // proofs the engine runs at once (>= 1)
    ReleasePolicy release = ReleasePolicy::immediate;  // lent to the allocator (HostServices::release)
  } pipeline;

  // `pacer serve` (docs/daemon.md).
  struct Server {
    std::string listen = "127.0.0.1:9820";  // host:port; port 0 = any free port (pacer serve --port-file)
    std::string token;                      // bearer token every request must carry; empty = none
    uint64_t max_body_bytes = uint64_t(256) << 20;  // a larger witness gets 413 before it is read
    unsigned max_queued = 1024;             // jobs that may wait ahead of a new one; more: 429
    unsigned result_ttl_s = 600;            // a finished job is kept this long, then forgotten
    unsigned request_timeout_s = 30;        // a request, headers and body, must arrive within this
    unsigned max_wait_s = 300;              // the longest ?wait= long-poll
    unsigned shutdown_grace_s = 30;         // SIGTERM: how long the proofs in flight may still run
    unsigned max_connections = 1024;        // open connections; more are closed at once (fewer if the fd limit says so)
    bool allow_no_token = false;            // listen on a non-loopback address with no token
    bool access_log = true;                 // one log line per request (5xx are logged regardless)
  } server;

  // [queue]: the PostgreSQL job store shared by fronts (`pacer serve`) and workers (`pacer worker`)
  // (docs/scale-out.md). Absent: the daemon keeps its jobs in memory, one host.
  struct Queue {
    std::string url;                 // libpq connection string (URI or key=value); empty = no [queue]
    std::string schema = "pacer";    // the database schema that holds the queue's tables
    unsigned lease_s = 30;           // a leased job returns to the queue this long after its worker's last renewal
    unsigned max_attempts = 3;       // a job that fails (or loses its worker) this often ends failed
    unsigned retention_s = 86400;    // a final job (its result) is deleted this long after it ended
    bool prove_locally = false;      // `pacer serve`: also run a worker in the daemon's process
    bool verify_proofs = true;       // a worker verifies each proof before it stores it
    bool enabled() const { return !url.empty(); }
  } queue;

  // [witness]: witness generators run from input.json (docs/fullprove.md).
  struct WitnessSettings {
    std::filesystem::path cache_dir;  // compiled generators; empty: $XDG_CACHE_HOME/pacer or ~/.cache/pacer
  } witness;

  std::vector<KeyEntry> keys;

  // nullptr when no [[keys]] entry has this id.
  const KeyEntry* find_key(const std::string& id) const;
  // "config.toml" or "(built-in defaults)", for messages.
  std::string source_name() const;
};

// cpu / plain / greedy, no keys: what the host runs without --config.
Config default_config();

// Parses and validates; throws InputError (one line, "<file>:<line>: ...") on any problem.
Config load_config(const std::filesystem::path& path);

std::string_view release_policy_name(ReleasePolicy p);

// A libpq connection string with its password replaced by "***" (URI user:password@ and
// ?password=, key=value password=...), for every message that shows one. Unparseable text is
// masked conservatively: nothing after a "password" keyword or between ':' and '@' survives.
std::string mask_conninfo(std::string_view conninfo);
// The password a connection string carries ("" if none), so that messages from elsewhere (libpq)
// can be scrubbed of it too.
std::string conninfo_password(std::string_view conninfo);
// `text` with every occurrence of `secret` replaced by "***" (nothing when `secret` is empty).
std::string scrub_secret(std::string text, std::string_view secret);

// "host:port" with a port of 0-65535 ([server] listen, pacer serve --listen).
bool is_listen_address(std::string_view address);

}  // namespace pacer
