#include "worker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/formats/wtns.hpp"
#include "pacer/os_random.hpp"
#include "pacer/witness/input_json.hpp"
#include "schema.hpp"

namespace pacer::host::queue {

struct Worker::Job {
  std::string id, key_id;
  int attempt = 1;
  std::future<ProofOutput> future;
  bool finished = false;  // the result (or error) below is ready to store
  bool ok = false;
  std::string proof_json, public_json, stages, error;
};

namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

void bump(Connection& conn, const std::string& schema, const char* counter, int64_t n) {
  if (n == 0) return;
  conn.exec(sql(schema, "UPDATE {s}.counters SET value = value + $2 WHERE name = $1"),
            {Param::text(counter), Param::text(std::to_string(n))});
}

}  // namespace

Worker::Worker(Prover& prover, Allocator* witness_allocator, const Config::Queue& settings, std::vector<WorkerKey> keys,
               std::shared_ptr<spdlog::logger> log)
    : prover_(prover),
      witness_allocator_(witness_allocator),
      settings_(settings),
      keys_(std::move(keys)),
      log_(std::move(log)),
      slots_(std::max(1u, prover.jobs_in_flight())) {
  me_.id = fmt::format("{}-{}-{}", host_name().substr(0, 64), ::getpid(), os_random_hex(4));
  me_.host = host_name().substr(0, 255);
  for (const auto& k : keys_) me_.keys += (me_.keys.empty() ? "" : ",") + k.id;
  me_.slots = slots_;
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw FailedError("worker: eventfd failed");
}

Worker::~Worker() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void Worker::wake() const noexcept {
  const uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);
}

std::vector<std::string> Worker::held() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, job] : jobs_) ids.push_back(id);
  return ids;
}

const WorkerKey* Worker::find_key(const std::string& id) const {
  for (const auto& k : keys_)
    if (k.id == id) return &k;
  return nullptr;
}

size_t Worker::run(const std::atomic<bool>& stop, std::chrono::seconds grace) {
  Connection conn(settings_.url, "pacer worker");
  if (!open_queue(conn, settings_.schema, *log_, &stop)) return 0;
  LeaseRenewer renewer(settings_, me_, [this] { return held(); }, log_);
  std::vector<std::string> ids;
  for (const auto& k : keys_) ids.push_back(k.id);
  log_->info("worker {} ready: keys {}, {} proof{} at once, queue {} (schema {}, lease {} s)", me_.id, me_.keys, slots_,
             slots_ == 1 ? "" : "s", conn.masked(), settings_.schema, settings_.lease_s);

  Backoff backoff;
  bool listening = false;
  std::optional<std::chrono::steady_clock::time_point> stop_by;
  for (;;) {
    if (stop && !stop_by) {
      stop_by = std::chrono::steady_clock::now() + grace;
      log_->info("worker {}: stopping; no new leases, {} proof{} in flight get up to {} s", me_.id, held().size(),
                 held().size() == 1 ? "" : "s", grace.count());
    }
    collect_finished();
    const bool past_grace = stop_by && std::chrono::steady_clock::now() >= *stop_by;
    if (stop_by && (held().empty() || past_grace)) break;
    try {
      conn.ensure();
      if (!listening) {
        conn.exec_simple("LISTEN " + settings_.schema + "_jobs");
        listening = true;
      }
      store_finished(conn);
      if (!stop) lease_more(conn);
      if (backoff.failing()) log_->info("worker {}: database reachable again", me_.id);
      backoff.reset();
      conn.wait(std::chrono::milliseconds(1000), wake_fd_);  // a new job, a finished proof, a signal
      uint64_t drained;
      [[maybe_unused]] const auto n = ::read(wake_fd_, &drained, sizeof drained);
    } catch (const ConnectionLost& e) {
      if (!backoff.failing())
        log_->warn("worker {}: lost the database ({}): {}; proofs in flight run on, reconnecting with backoff", me_.id,
                   conn.masked(), e.what());
      conn.drop();
      listening = false;
      const auto until = std::chrono::steady_clock::now() + backoff.next();
      while (std::chrono::steady_clock::now() < until && !(stop && !stop_by)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } catch (const std::exception& e) {
      log_->error("worker {}: {}", me_.id, e.what());
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  size_t left = held().size();
  if (left > 0) {
    try {
      give_back_running(conn);
    } catch (const std::exception& e) {
      log_->warn("worker {}: could not give back {} job{} ({}); their leases expire after {} s", me_.id, left,
                 left == 1 ? "" : "s", e.what(), settings_.lease_s);
    }
  }
  log_->info("worker {}: stopped ({} proof{} left unfinished)", me_.id, left, left == 1 ? "" : "s");
  return left;
}

void Worker::lease_more(Connection& conn) {
  const auto& s = settings_.schema;
  std::vector<std::string> ids;
  for (const auto& k : keys_) ids.push_back(k.id);
  const std::string keys = text_array(ids);
  // Jobs whose worker vanished max_attempts times, or that were cancelled while their worker
  // vanished, end here rather than circulate.
  conn.exec(sql(s, "UPDATE {s}.jobs SET state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'failed' END, "
                   "error = CASE WHEN cancel_requested THEN 'cancelled by a DELETE request; its worker was lost' "
                   "ELSE format('its worker was lost (lease expired) on each of its %s attempts ([queue] max_attempts)', attempts) END, "
                   "ended_at = clock_timestamp(), body = NULL, lease_owner = NULL, lease_until = NULL "
                   "WHERE key_id = ANY($1::text[]) AND state = 'running' AND lease_until < now() "
                   "AND (attempts >= $2 OR cancel_requested)"),
            {Param::text(keys), Param::text(std::to_string(settings_.max_attempts))});
  size_t free_slots;
  {
    std::lock_guard lock(mu_);
    free_slots = slots_ > jobs_.size() ? slots_ - jobs_.size() : 0;
  }
  if (free_slots == 0) return;
  const Result r = conn.exec(sql(s,
      "WITH c AS (SELECT id, state AS was FROM {s}.jobs "
      "  WHERE key_id = ANY($1::text[]) AND NOT cancel_requested AND attempts < $4 "
      "    AND (state = 'queued' OR (state = 'running' AND lease_until < now() AND lease_owner <> $3)) "
      "  ORDER BY priority DESC, submitted_at LIMIT $2 FOR UPDATE SKIP LOCKED) "
      "UPDATE {s}.jobs j SET state = 'running', lease_owner = $3, "
      "  lease_until = clock_timestamp() + $5 * interval '1 second', attempts = j.attempts + 1, "
      "  started_at = clock_timestamp() "
      "FROM c WHERE j.id = c.id RETURNING j.id, j.key_id, j.input_json, j.attempts, c.was"),
      {Param::text(keys), Param::text(std::to_string(free_slots)), Param::text(me_.id),
       Param::text(std::to_string(settings_.max_attempts)), Param::text(std::to_string(settings_.lease_s))});
  int64_t reclaimed = 0;
  // Leased jobs not yet handed to the engine: if the connection drops now they are let go (no
  // longer renewed), so their leases run out and they are taken again, by us or another worker.
  std::vector<std::string> not_started;
  for (int row = 0; row < r.rows(); ++row) not_started.push_back(r.str(row, 0));
  try {
    start_leased(conn, r, not_started, reclaimed);
  } catch (...) {
    std::lock_guard lock(mu_);
    for (const auto& id : not_started) jobs_.erase(id);
    throw;
  }
  bump(conn, s, "leases_taken", r.rows());
  bump(conn, s, "leases_lost", reclaimed);
  bump(conn, s, "retries", reclaimed);
}

void Worker::start_leased(Connection& conn, const Result& r, std::vector<std::string>& not_started, int64_t& reclaimed) {
  const auto& s = settings_.schema;
  for (int row = 0; row < r.rows(); ++row) {
    auto job = std::make_shared<Job>();
    job->id = r.str(row, 0);
    job->key_id = r.str(row, 1);
    const bool input_json = r.boolean(row, 2);
    job->attempt = static_cast<int>(r.integer(row, 3));
    if (r.text(row, 4) == "running") {
      ++reclaimed;
      log_->info("job {}: its lease had expired (worker lost); taken again, attempt {}", job->id, job->attempt);
    }
    {
      std::lock_guard lock(mu_);
      jobs_[job->id] = job;  // held from here on, so its lease is renewed
    }
    const WorkerKey* key = find_key(job->key_id);
    if (!key) {  // the statement asked for our keys only; kept as a guard
      std::lock_guard lock(mu_);
      job->finished = true;
      job->error = fmt::format("worker {} holds no key '{}'", me_.id, job->key_id);
      not_started.erase(std::find(not_started.begin(), not_started.end(), job->id));
      continue;
    }
    const Result body_row = conn.exec(sql(s, "SELECT body FROM {s}.jobs WHERE id = $1"), {Param::text(job->id)}, true);
    auto body = std::make_shared<const std::string>(body_row.rows() > 0 ? body_row.str(0, 0) : std::string());
    const std::string name = "job " + job->id;
    WitnessSource source;
    if (input_json) {
      source = [generator = key->generator, body, name, allocator = witness_allocator_] {
        if (!generator) throw InputError(name + ": an input.json job for a key without a witness generator here");
        const auto inputs = witness::parse_input_json(*body, name);
        return std::make_shared<const Witness>(generator->compute(inputs, allocator));
      };
    } else {
      source = [body, name, allocator = witness_allocator_] {
        return std::make_shared<const Witness>(read_wtns_bytes(name, std::string(*body), allocator));
      };
    }
    ProveOptions options;
    options.witness_stage = input_json;
    options.on_done = [this] { wake(); };
    try {
      job->future = prover_.submit(key->key, std::move(source), options);
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      job->finished = true;
      job->error = fmt::format("the engine refused the proof: {}", e.what());
    }
    not_started.erase(std::find(not_started.begin(), not_started.end(), job->id));
  }
}

void Worker::collect_finished() {
  std::lock_guard lock(mu_);
  for (auto& [id, job] : jobs_) {
    if (job->finished || !job->future.valid()) continue;
    if (job->future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    job->finished = true;
    try {
      ProofOutput out = job->future.get();
      job->ok = true;
      job->proof_json = std::move(out.proof_json);
      job->public_json = std::move(out.public_json);
      for (int s = 0; s < kStageCount; ++s)
        job->stages += fmt::format("{}{:.6f}", s ? " " : "", std::chrono::duration<double>(out.stage_time[s]).count());
    } catch (const std::exception& e) {
      job->error = e.what();
    } catch (...) {
      job->error = "unknown error";
    }
  }
}

void Worker::store_finished(Connection& conn) {
  std::vector<std::shared_ptr<Job>> ready;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, job] : jobs_)
      if (job->finished) ready.push_back(job);
  }
  const auto& s = settings_.schema;
  for (const auto& job : ready) {
    if (job->ok) {
      // The first result stored wins: a job final already (another worker's result, a cancel) is left as it is.
      const Result r = conn.exec(sql(s,
          "UPDATE {s}.jobs SET state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'done' END, "
          "proof_json = CASE WHEN cancel_requested THEN NULL ELSE $2 END, "
          "public_json = CASE WHEN cancel_requested THEN NULL ELSE $3 END, stages = $4, "
          "error = CASE WHEN cancel_requested THEN 'cancelled by a DELETE request while it ran; its proof was dropped' END, "
          "ended_at = clock_timestamp(), body = NULL, lease_owner = NULL, lease_until = NULL, result_owner = $5 "
          "WHERE id = $1 AND state IN ('queued', 'running') RETURNING state"),
          {Param::text(job->id), Param::text(job->proof_json), Param::text(job->public_json), Param::text(job->stages),
           Param::text(me_.id)});
      // Stored by us already when an earlier try committed but its answer was lost with the connection.
      const bool ours = r.rows() > 0 || conn.exec(sql(s, "SELECT 1 FROM {s}.jobs WHERE id = $1 AND result_owner = $2"),
                                                 {Param::text(job->id), Param::text(me_.id)}).rows() > 0;
      if (ours) {
        log_->info("job {}: result stored ({}, attempt {})", job->id, r.rows() > 0 ? r.str(0, 0) : "done", job->attempt);
      } else {
        log_->info("job {}: another result was stored first; this one is dropped", job->id);
        bump(conn, s, "duplicates_dropped", 1);
      }
    } else {
      const Result r = conn.exec(sql(s,
          "UPDATE {s}.jobs SET "
          "state = CASE WHEN cancel_requested THEN 'cancelled' WHEN attempts >= $3 THEN 'failed' ELSE 'queued' END, "
          "error = $2, lease_owner = NULL, lease_until = NULL, "
          "ended_at = CASE WHEN cancel_requested OR attempts >= $3 THEN clock_timestamp() END, "
          "body = CASE WHEN cancel_requested OR attempts >= $3 THEN NULL ELSE body END "
          "WHERE id = $1 AND state = 'running' AND lease_owner = $4 RETURNING state"),
          {Param::text(job->id), Param::text(job->error.substr(0, 4000)),
           Param::text(std::to_string(settings_.max_attempts)), Param::text(me_.id)});
      const std::string state = r.rows() > 0 ? r.str(0, 0) : "(no longer ours)";
      log_->warn("job {}: proof failed on attempt {}: {} -> {}", job->id, job->attempt, job->error, state);
      if (state == "queued") bump(conn, s, "retries", 1);
    }
    std::lock_guard lock(mu_);
    jobs_.erase(job->id);
  }
}

void Worker::give_back_running(Connection& conn) {
  // Not the job's fault: the attempt is not counted, and another worker may take it at once.
  const Result r = conn.exec(sql(settings_.schema,
      "UPDATE {s}.jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), lease_owner = NULL, lease_until = NULL "
      "WHERE id = ANY($1::text[]) AND lease_owner = $2 AND state = 'running' RETURNING id"),
      {Param::text(text_array(held())), Param::text(me_.id)});
  log_->info("worker {}: gave back {} unfinished job{} to the queue", me_.id, r.rows(), r.rows() == 1 ? "" : "s");
}

}  // namespace pacer::host::queue
