#include "lease_renewer.hpp"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "pacer/thread_guard.hpp"
#include "pg.hpp"
#include "schema.hpp"

namespace pacer::host::queue {

LeaseRenewer::LeaseRenewer(const Config::Queue& settings, WorkerIdentity me,
                           std::function<std::vector<std::string>()> held, std::shared_ptr<spdlog::logger> log)
    : settings_(settings), me_(std::move(me)), held_(std::move(held)), log_(std::move(log)) {
  thread_ = std::thread([this] { call_and_log_exceptions([this] { loop(); }, log_.get(), "lease renewer"); });
}

LeaseRenewer::~LeaseRenewer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaseRenewer::loop() {
  Connection conn(settings_.url, "pacer worker (leases)");
  Backoff backoff;
  const auto period = std::chrono::milliseconds(settings_.lease_s * 1000 / 3);
  const std::string lease = std::to_string(settings_.lease_s);
  std::set<std::string> lost;  // reported once each
  for (;;) {
    std::chrono::milliseconds pause = period;
    try {
      conn.exec(sql(settings_.schema,
                    "INSERT INTO {s}.workers (id, host, keys, slots) VALUES ($1, $2, $3, $4) "
                    "ON CONFLICT (id) DO UPDATE SET seen_at = now()"),
                {Param::text(me_.id), Param::text(me_.host), Param::text(me_.keys), Param::text(std::to_string(me_.slots))});
      const std::vector<std::string> held = held_();
      if (!held.empty()) {
        const Result r = conn.exec(sql(settings_.schema,
            "UPDATE {s}.jobs SET lease_until = clock_timestamp() + $3 * interval '1 second' "
            "WHERE id = ANY($1::text[]) AND lease_owner = $2 AND state = 'running' RETURNING id"),
            {Param::text(text_array(held)), Param::text(me_.id), Param::text(lease)});
        std::set<std::string> renewed;
        for (int i = 0; i < r.rows(); ++i) renewed.insert(r.str(i, 0));
        for (const auto& id : held)
          if (!renewed.count(id) && lost.insert(id).second)
            log_->info("job {}: lease no longer ours (taken by another worker after it expired, ended or cancelled); "
                       "its proof runs on and is stored only if no other result was first", id);
      }
      if (backoff.failing()) log_->info("lease renewer: database reachable again");
      backoff.reset();
    } catch (const ConnectionLost& e) {
      if (!backoff.failing()) log_->warn("lease renewer: lost the database ({}): {}", conn.masked(), e.what());
      conn.drop();
      pause = std::min(period, backoff.next());
    } catch (const std::exception& e) {
      log_->error("lease renewer: {}", e.what());
    }
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, pause, [&] { return stop_; })) return;
  }
}

}  // namespace pacer::host::queue
