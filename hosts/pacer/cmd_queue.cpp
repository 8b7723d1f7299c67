// `pacer queue status --config F [--json]`: what the PostgreSQL job queue holds now: depth by key
// and priority, leases taken and lost, retries, the workers alive (docs/scale-out.md).
#include <cstdio>

#include <fmt/format.h>

#include "common.hpp"
#include "pacer/error.hpp"
#include "queue/pg.hpp"
#include "queue/queue_status.hpp"
#include "queue/schema.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string config;
  bool json = false;
};

int run_queue_status(const Options& options) {
  const Config config = load_config_or_defaults(options.config);
  if (!config.queue.enabled())
    throw InputError(fmt::format("queue status: {} has no [queue] url", config.source_name()));
  queue::check_conninfo(config.queue.url, "[queue] url");
  queue::Connection conn(config.queue.url, "pacer queue status");
  try {
    conn.ensure();
    if (conn.exec("SELECT to_regclass($1)", {queue::Param::text(config.queue.schema + ".jobs")}).null(0, 0)) {
      std::printf("no queue in schema %s yet (a front or worker creates it on start)\n", config.queue.schema.c_str());
      return 0;
    }
    const queue::QueueStatus status = queue::read_queue_status(conn, config.queue.schema, config.queue.lease_s);
    if (options.json)
      std::printf("%s\n", queue::to_json(status).dump(2).c_str());
    else
      std::printf("queue %s (schema %s)\n%s", conn.masked().c_str(), config.queue.schema.c_str(),
                  queue::to_text(status).c_str());
  } catch (const queue::ConnectionLost& e) {
    throw FailedError(fmt::format("queue status: cannot reach the database ({}): {}", conn.masked(), e.what()));
  }
  return 0;
}

}  // namespace

Subcommand add_queue_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand("queue", "Inspect the PostgreSQL job queue of [queue] (docs/scale-out.md).");
  CLI::App* status = cmd->add_subcommand("status", "Depth by key and priority, leases, retries, live workers.");
  add_config_option(*status, options->config);
  status->add_flag("--json", options->json, "print JSON instead of text");
  cmd->require_subcommand(1);
  return {cmd, [options] { return run_queue_status(*options); }};
}

}  // namespace pacer::host
