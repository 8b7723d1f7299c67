#pragma once
// The daemon's jobs as rows in PostgreSQL ([queue] url; docs/scale-out.md): POST inserts one (its
// body as sent), GET reads it back, so any front answers for any job and a restarted front for
// old ids. Workers (worker.hpp) lease and prove them. Long-polls are woken by LISTEN/NOTIFY: a
// trigger notifies "<schema>_final" with the id when a job reaches a final state.
//
// While the database is unreachable every call throws serve::QueueUnavailable (the routes answer
// 503 with Retry-After) without waiting: reconnection is attempted at most as often as a backoff
// allows, so a down database costs a request nothing but the refusal.
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "../serve/job_queue.hpp"
#include "pacer/config.hpp"
#include "pg.hpp"

namespace spdlog { class logger; }

namespace pacer::host::queue {

class PgJobQueue final : public serve::JobQueue {
 public:
  // Connects and creates or migrates the schema first (waiting while the database is down).
  PgJobQueue(const Config::Queue& settings, unsigned max_queued, std::shared_ptr<spdlog::logger> log);
  ~PgJobQueue() override;

  bool durable() const override { return true; }
  SubmitResult admission(serve::Priority priority) const override;
  SubmitResult submit(serve::Submission submission) override;
  std::optional<serve::JobView> find(const std::string& id) const override;
  bool when_final(const std::string& id, std::function<void()> wake) override;
  CancelResult cancel(const std::string& id) override;
  void expire() override;
  serve::StoreCounts counts() const override;
  // The jobs live on in the database: a front that stops only takes no more.
  void close(const std::string&) override { closed_ = true; }
  size_t running() const override { return 0; }
  size_t abandon_running(const std::string&) override { return 0; }
  std::string status_json() const override;
  std::string metrics_text() const override;

 private:
  // Runs `fn(conn)` under the connection's lock; a lost connection becomes QueueUnavailable.
  template <class F>
  auto with_connection(F&& fn) const;
  void listen_loop();
  void wake_all();

  Config::Queue settings_;
  unsigned max_queued_;
  std::shared_ptr<spdlog::logger> log_;
  std::atomic<bool> closed_{false}, stop_{false};

  mutable std::mutex mu_;  // the statement connection and its backoff
  mutable Connection conn_;
  mutable Backoff backoff_;
  mutable std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::steady_clock::time_point last_expiry_{};

  // Each long-poll's wake-up under the job id, with a serial of its own: the listener may take an
  // entry (NOTIFY, reconnect) while when_final still reads the state, so when_final erases its
  // entry by serial, if it is still there, never through an iterator kept across the read.
  using Waiters = std::multimap<std::string, std::pair<uint64_t, std::function<void()>>>;
  std::mutex waiters_mu_;
  Waiters waiters_;
  uint64_t next_waiter_ = 0;
  std::thread listener_;
};

}  // namespace pacer::host::queue
