#include "pg_store.hpp"

#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/os_random.hpp"
#include "pacer/thread_guard.hpp"
#include "queue_status.hpp"
#include "schema.hpp"

namespace pacer::host::queue {

using serve::JobState;
using serve::Priority;

PgJobQueue::PgJobQueue(const Config::Queue& settings, unsigned max_queued, std::shared_ptr<spdlog::logger> log)
    : settings_(settings), max_queued_(max_queued), log_(std::move(log)), conn_(settings.url, "pacer serve") {
  open_queue(conn_, settings_.schema, *log_, nullptr);
  listener_ = std::thread([this] { call_and_log_exceptions([this] { listen_loop(); }, log_.get(), "queue listener"); });
  log_->info("queue: jobs in PostgreSQL ({}, schema {})", conn_.masked(), settings_.schema);
}

PgJobQueue::~PgJobQueue() {
  stop_ = true;
  if (listener_.joinable()) listener_.join();
}

template <class F>
auto PgJobQueue::with_connection(F&& fn) const {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (!conn_.connected() && now < retry_at_)
    throw serve::QueueUnavailable("the database is unreachable; reconnecting with backoff");
  try {
    auto result = fn(conn_);
    if (backoff_.failing()) log_->info("queue: database reachable again");
    backoff_.reset();
    return result;
  } catch (const ConnectionLost& e) {
    if (!backoff_.failing()) log_->warn("queue: lost the database ({}): {}", conn_.masked(), e.what());
    conn_.drop();
    retry_at_ = std::chrono::steady_clock::now() + backoff_.next();
    throw serve::QueueUnavailable("the database is unreachable; reconnecting with backoff");
  }
}

PgJobQueue::SubmitResult PgJobQueue::admission(Priority priority) const {
  if (closed_) return Closed{};
  const int64_t ahead = with_connection([&](Connection& c) {
    return c.exec(sql(settings_.schema, "SELECT count(*) FROM {s}.jobs WHERE state = 'queued' AND priority >= $1"),
                  {Param::text(std::to_string(static_cast<int>(priority)))})
        .integer(0, 0);
  });
  if (ahead >= static_cast<int64_t>(max_queued_)) return Refused{std::chrono::seconds(5), static_cast<size_t>(ahead)};
  return Accepted{};
}

PgJobQueue::SubmitResult PgJobQueue::submit(serve::Submission s) {
  if (closed_) return Closed{};
  std::string id = os_random_hex(16);  // 128 bits: collisions are not a concern, guessing is
  with_connection([&](Connection& c) {
    c.exec(sql(settings_.schema, "INSERT INTO {s}.jobs (id, key_id, priority, input_json, body) VALUES ($1, $2, $3, $4, $5)"),
           {Param::text(id), Param::text(s.key_id), Param::text(std::to_string(static_cast<int>(s.priority))),
            Param::text(s.computes_witness ? "t" : "f"), Param::bytes(s.body)});
    return 0;
  });
  return Accepted{std::move(id)};
}

std::optional<serve::JobView> PgJobQueue::find(const std::string& id) const {
  if (id.size() > 64) return std::nullopt;
  return with_connection([&](Connection& c) -> std::optional<serve::JobView> {
    const Result r = c.exec(sql(settings_.schema,
        "SELECT id, key_id, priority, state, cancel_requested, extract(epoch FROM submitted_at), "
        "coalesce(extract(epoch FROM started_at), 0), coalesce(extract(epoch FROM ended_at), 0), stages, proof_json, "
        "public_json, error, attempts FROM {s}.jobs WHERE id = $1"),
        {Param::text(id)});
    if (r.rows() == 0) return std::nullopt;
    serve::JobView v;
    v.id = r.str(0, 0);
    v.key = r.str(0, 1);
    v.priority = static_cast<Priority>(std::clamp<int64_t>(r.integer(0, 2), 0, serve::kPriorityCount - 1));
    v.state = serve::parse_state(r.text(0, 3)).value_or(JobState::failed);
    v.cancel_requested = r.boolean(0, 4);
    v.submitted_at = r.real(0, 5);
    v.started_at = r.real(0, 6);
    v.ended_at = r.real(0, 7);
    std::istringstream stages(r.str(0, 8));  // "s0 s1 ...": each stage's seconds, as the worker wrote them
    for (int s = 0; s < kStageCount && stages; ++s) stages >> v.stage_seconds[s];
    v.proof_json = r.str(0, 9);
    v.public_json = r.str(0, 10);
    v.error = r.str(0, 11);
    v.attempts = static_cast<unsigned>(std::max<int64_t>(1, r.integer(0, 12)));
    return v;
  });
}

bool PgJobQueue::when_final(const std::string& id, std::function<void()> wake) {
  // Registered before the state is read, so a NOTIFY between the two is not missed.
  uint64_t serial = 0;
  {
    std::lock_guard lock(waiters_mu_);
    serial = next_waiter_++;
    waiters_.emplace(id, std::make_pair(serial, std::move(wake)));
  }
  // The listener thread may have taken (and freed) the entry meanwhile: look it up again.
  const auto forget = [&] {
    std::lock_guard lock(waiters_mu_);
    const auto [begin, end] = waiters_.equal_range(id);
    for (auto i = begin; i != end; ++i)
      if (i->second.first == serial) {
        waiters_.erase(i);
        break;
      }
  };
  bool waiting = false;
  try {
    const auto job = find(id);
    waiting = job && !serve::is_final(job->state);
  } catch (...) {
    forget();
    throw;
  }
  if (!waiting) forget();  // it may have been called already: a wake-up is only a reason to look
  return waiting;
}

void PgJobQueue::wake_all() {
  Waiters all;
  {
    std::lock_guard lock(waiters_mu_);
    all.swap(waiters_);
  }
  for (auto& [id, entry] : all) entry.second();
}

void PgJobQueue::listen_loop() {
  Connection conn(settings_.url, "pacer serve (listen)");
  Backoff backoff;
  const std::string channel = settings_.schema + "_final";
  while (!stop_) {
    try {
      if (!conn.connected()) {
        conn.ensure();
        conn.exec_simple("LISTEN " + channel);
        if (backoff.failing()) wake_all();  // what ended while we were cut off: the waiters look again
        backoff.reset();
      }
      for (const auto& [ch, id] : conn.wait(std::chrono::milliseconds(250))) {
        if (ch != channel) continue;
        std::vector<std::function<void()>> wake;
        {
          std::lock_guard lock(waiters_mu_);
          const auto [begin, end] = waiters_.equal_range(id);
          for (auto i = begin; i != end; ++i) wake.push_back(std::move(i->second.second));
          waiters_.erase(begin, end);
        }
        for (auto& w : wake) w();
      }
    } catch (const ConnectionLost&) {
      conn.drop();
      const auto deadline = std::chrono::steady_clock::now() + backoff.next();
      while (!stop_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } catch (const InputError& e) {
      log_->error("queue listener: {}", e.what());
      std::this_thread::sleep_for(std::chrono::seconds(5));
    }
  }
}

PgJobQueue::CancelResult PgJobQueue::cancel(const std::string& id) {
  if (id.size() > 64) return CancelResult::unknown;
  return with_connection([&](Connection& c) {
    const Result r = c.exec(sql(settings_.schema,
        "UPDATE {s}.jobs SET cancel_requested = true, "
        "state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END, "
        "error = CASE WHEN state = 'queued' THEN 'cancelled by a DELETE request before it ran' ELSE error END, "
        "ended_at = CASE WHEN state = 'queued' THEN clock_timestamp() ELSE ended_at END, "
        "body = CASE WHEN state = 'queued' THEN NULL ELSE body END "
        "WHERE id = $1 AND state IN ('queued', 'running') RETURNING state"),
        {Param::text(id)});
    if (r.rows() > 0) return r.text(0, 0) == "cancelled" ? CancelResult::cancelled : CancelResult::cancelling;
    const Result exists = c.exec(sql(settings_.schema, "SELECT 1 FROM {s}.jobs WHERE id = $1"), {Param::text(id)});
    return exists.rows() > 0 ? CancelResult::already_final : CancelResult::unknown;
  });
}

void PgJobQueue::expire() {
  // Every front runs this; once every 10 s each is plenty for a retention of seconds to days.
  const auto now = std::chrono::steady_clock::now();
  if (now - last_expiry_ < std::chrono::seconds(10)) return;
  last_expiry_ = now;
  try {
    with_connection([&](Connection& c) {
      c.exec(sql(settings_.schema, "DELETE FROM {s}.jobs WHERE ended_at < now() - $1 * interval '1 second'"),
             {Param::text(std::to_string(settings_.retention_s))});
      c.exec(sql(settings_.schema, "DELETE FROM {s}.workers WHERE seen_at < now() - interval '1 day'"));
      return 0;
    });
  } catch (const serve::QueueUnavailable&) {
    // Next time: the outage is logged by with_connection.
  }
}

serve::StoreCounts PgJobQueue::counts() const {
  return with_connection([&](Connection& c) {
    serve::StoreCounts counts;
    const Result r = c.exec(sql(settings_.schema, "SELECT state, priority, count(*) FROM {s}.jobs GROUP BY 1, 2"));
    for (int row = 0; row < r.rows(); ++row) {
      const auto n = static_cast<size_t>(r.integer(row, 2));
      switch (serve::parse_state(r.text(row, 0)).value_or(JobState::failed)) {
        case JobState::queued:
          counts.queued[std::clamp<int64_t>(r.integer(row, 1), 0, serve::kPriorityCount - 1)] += n;
          break;
        case JobState::running: counts.running += n; break;
        case JobState::done: counts.done += n; break;
        case JobState::failed: counts.failed += n; break;
        case JobState::cancelled: counts.cancelled += n; break;
      }
    }
    return counts;
  });
}

std::string PgJobQueue::status_json() const {
  return with_connection([&](Connection& c) {
    auto j = to_json(read_queue_status(c, settings_.schema, settings_.lease_s));
    nlohmann::ordered_json out{{"store", "postgresql"}, {"url", c.masked()}, {"schema", settings_.schema},
                               {"lease_s", settings_.lease_s}, {"max_attempts", settings_.max_attempts},
                               {"retention_s", settings_.retention_s}};
    out.update(j);
    return out.dump();
  });
}

std::string PgJobQueue::metrics_text() const {
  return with_connection([&](Connection& c) { return to_prometheus(read_queue_status(c, settings_.schema, settings_.lease_s)); });
}

}  // namespace pacer::host::queue
