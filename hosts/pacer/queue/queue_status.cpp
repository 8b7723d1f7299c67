#include "queue_status.hpp"

#include <fmt/format.h>

#include "../serve/priority.hpp"
#include "schema.hpp"

namespace pacer::host::queue {

namespace {

std::string priority_text(int p) {
  return p >= 0 && p < serve::kPriorityCount ? std::string(serve::priority_name(static_cast<serve::Priority>(p)))
                                             : std::to_string(p);
}

// A label value as Prometheus's text format escapes it (a key id is any string of the config).
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

QueueStatus read_queue_status(Connection& conn, const std::string& schema, unsigned lease_s) {
  QueueStatus s;
  const Result depth = conn.exec(sql(schema,
      "SELECT key_id, priority, count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running') "
      "FROM {s}.jobs WHERE state IN ('queued', 'running') GROUP BY 1, 2 ORDER BY 1, 2 DESC"));
  for (int r = 0; r < depth.rows(); ++r)
    s.depth.push_back({depth.str(r, 0), static_cast<int>(depth.integer(r, 1)), depth.integer(r, 2), depth.integer(r, 3)});
  const Result counters = conn.exec(sql(schema, "SELECT name, value FROM {s}.counters ORDER BY name"));
  for (int r = 0; r < counters.rows(); ++r) s.counters[counters.str(r, 0)] = counters.integer(r, 1);
  const Result finals = conn.exec(sql(schema,
      "SELECT count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'failed'), "
      "count(*) FILTER (WHERE state = 'cancelled') FROM {s}.jobs WHERE state IN ('done', 'failed', 'cancelled')"));
  s.done = finals.integer(0, 0);
  s.failed = finals.integer(0, 1);
  s.cancelled = finals.integer(0, 2);
  const Result workers = conn.exec(sql(schema,
      "SELECT w.id, w.host, w.keys, w.slots, extract(epoch FROM now() - w.seen_at), "
      "(SELECT count(*) FROM {s}.jobs j WHERE j.state = 'running' AND j.lease_owner = w.id AND j.lease_until > now()) "
      "FROM {s}.workers w WHERE w.seen_at > now() - $1 * interval '2 seconds' ORDER BY w.id"),
      {Param::text(std::to_string(lease_s))});
  for (int r = 0; r < workers.rows(); ++r)
    s.workers.push_back({workers.str(r, 0), workers.str(r, 1), workers.str(r, 2), workers.integer(r, 3),
                         workers.integer(r, 5), workers.real(r, 4)});
  return s;
}

nlohmann::ordered_json to_json(const QueueStatus& s) {
  using json = nlohmann::ordered_json;
  json depth = json::array();
  for (const auto& d : s.depth)
    depth.push_back({{"key", d.key}, {"priority", priority_text(d.priority)}, {"queued", d.queued}, {"running", d.running}});
  json workers = json::array();
  for (const auto& w : s.workers)
    workers.push_back({{"id", w.id}, {"host", w.host}, {"keys", w.keys}, {"slots", w.slots}, {"running", w.running},
                       {"seen_s_ago", w.seen_s_ago}});
  json counters = json::object();
  for (const auto& [name, value] : s.counters) counters[name] = value;
  return json{{"depth", depth}, {"final", {{"done", s.done}, {"failed", s.failed}, {"cancelled", s.cancelled}}},
              {"counters", counters}, {"live_workers", workers.size()}, {"workers", workers}};
}

std::string to_text(const QueueStatus& s) {
  std::string out = "depth by key and priority:\n";
  if (s.depth.empty()) out += "  (none waiting or running)\n";
  for (const auto& d : s.depth)
    out += fmt::format("  {:<24} {:<9} queued {:>6}  running {:>4}\n", d.key, priority_text(d.priority), d.queued, d.running);
  out += fmt::format("kept: {} done, {} failed, {} cancelled\n", s.done, s.failed, s.cancelled);
  out += "counters:";
  for (const auto& [name, value] : s.counters) out += fmt::format(" {} {}", name, value);
  out += fmt::format("\nlive workers: {}\n", s.workers.size());
  for (const auto& w : s.workers)
    out += fmt::format("  {} on {}: keys {}, {} slot{}, {} running, seen {:.1f} s ago\n", w.id, w.host, w.keys, w.slots,
                       w.slots == 1 ? "" : "s", w.running, w.seen_s_ago);
  return out;
}

std::string to_prometheus(const QueueStatus& s) {
  std::string out =
      "# HELP pacer_queue_jobs Jobs in the PostgreSQL queue waiting or leased, by key, priority and state.\n"
      "# TYPE pacer_queue_jobs gauge\n";
  for (const auto& d : s.depth)
    out += fmt::format("pacer_queue_jobs{{key=\"{0}\",priority=\"{1}\",state=\"queued\"}} {2}\n"
                       "pacer_queue_jobs{{key=\"{0}\",priority=\"{1}\",state=\"running\"}} {3}\n",
                       label(d.key), priority_text(d.priority), d.queued, d.running);
  for (const auto& [name, value] : s.counters)
    out += fmt::format("# HELP pacer_queue_{0}_total Since the queue was created, over all workers.\n"
                       "# TYPE pacer_queue_{0}_total counter\npacer_queue_{0}_total {1}\n",
                       name, value);
  out += fmt::format("# HELP pacer_queue_live_workers Workers seen within two lease periods.\n"
                     "# TYPE pacer_queue_live_workers gauge\npacer_queue_live_workers {}\n",
                     s.workers.size());
  return out;
}

}  // namespace pacer::host::queue
