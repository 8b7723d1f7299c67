#pragma once
// What the queue holds now, read from the database: depth by key and priority, leases, retries,
// the workers alive. `pacer queue status` prints it; a front's /v1/status embeds it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pg.hpp"

namespace pacer::host::queue {

struct QueueStatus {
  struct Depth {
    std::string key;
    int priority = 0;  // serve::Priority as a number: 3 critical ... 0 low
    int64_t queued = 0, running = 0;
  };
  struct LiveWorker {
    std::string id, host, keys;
    int64_t slots = 0, running = 0;
    double seen_s_ago = 0;
  };
  std::vector<Depth> depth;
  std::map<std::string, int64_t> counters;  // leases_taken, leases_lost, retries, duplicates_dropped
  std::vector<LiveWorker> workers;          // seen within two lease periods
  int64_t done = 0, failed = 0, cancelled = 0;
};

QueueStatus read_queue_status(Connection& conn, const std::string& schema, unsigned lease_s);
nlohmann::ordered_json to_json(const QueueStatus& s);
std::string to_text(const QueueStatus& s);
// Prometheus text: pacer_queue_jobs{key,priority,state}, the counters as *_total, live workers.
std::string to_prometheus(const QueueStatus& s);

}  // namespace pacer::host::queue
