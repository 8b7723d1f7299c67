#pragma once
// A worker's loop (`pacer worker`, and `pacer serve` with [queue] prove_locally): lease jobs for
// the keys this process holds resident, highest priority first (FOR UPDATE SKIP LOCKED, so
// workers never wait on each other), prove them with the engine, store each result. The first
// result stored wins; a later one for the same job is dropped. A failed proof goes back to the
// queue until it has failed max_attempts times. Leases are kept alive by LeaseRenewer.
// A lost database connection is retried with backoff; proofs in flight run on meanwhile and their
// results wait in memory until they can be stored.
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lease_renewer.hpp"
#include "pacer/config.hpp"
#include "pacer/prover.hpp"
#include "pacer/witness/generator.hpp"
#include "pg.hpp"

namespace spdlog { class logger; }

namespace pacer::host::queue {

struct WorkerKey {
  std::string id;
  std::shared_ptr<ResidentKey> key;
  std::shared_ptr<const witness::Generator> generator;  // may be null: .wtns jobs only
};

class Worker {
 public:
  Worker(Prover& prover, Allocator* witness_allocator, const Config::Queue& settings, std::vector<WorkerKey> keys,
         std::shared_ptr<spdlog::logger> log);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Until `stop` is set: lease and prove. Then no new leases; the proofs in flight get `grace` to
  // finish and be stored, and the jobs still running after it go back to the queue. Returns how
  // many proofs were left running in the engine (the caller must not wait for them).
  size_t run(const std::atomic<bool>& stop, std::chrono::seconds grace);
  // Ends a wait early (async-signal-safe: one write to an eventfd).
  void wake() const noexcept;
  const std::string& id() const { return me_.id; }

 private:
  struct Job;
  void lease_more(Connection& conn);
  // Fetches each leased job's body and hands it to the engine; removes each from `not_started` once it is there.
  void start_leased(Connection& conn, const Result& leased, std::vector<std::string>& not_started, int64_t& reclaimed);
  void collect_finished();
  void store_finished(Connection& conn);
  void give_back_running(Connection& conn);
  std::vector<std::string> held() const;
  const WorkerKey* find_key(const std::string& id) const;

  Prover& prover_;
  Allocator* witness_allocator_;
  Config::Queue settings_;
  std::vector<WorkerKey> keys_;
  std::shared_ptr<spdlog::logger> log_;
  WorkerIdentity me_;
  int wake_fd_ = -1;
  unsigned slots_;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // leased by this worker and not yet stored
};

}  // namespace pacer::host::queue
