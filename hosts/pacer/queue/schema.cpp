#include "schema.hpp"

#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace pacer::host::queue {

namespace {

// Migration n brings version n-1 to n. Never edit one that has shipped: add the next.
const char* const kMigrations[] = {
    // 1: jobs (a witness or input.json in, a proof out), the workers that lease them, counters.
    R"sql(
CREATE TABLE {s}.jobs (
  id text PRIMARY KEY,
  key_id text NOT NULL,
  priority smallint NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  input_json boolean NOT NULL DEFAULT false,
  body bytea,
  submitted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at timestamptz,
  ended_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  cancel_requested boolean NOT NULL DEFAULT false,
  proof_json text,
  public_json text,
  stages text,
  error text,
  result_owner text
);
CREATE INDEX jobs_waiting ON {s}.jobs (key_id, priority DESC, submitted_at) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_ended ON {s}.jobs (ended_at) WHERE ended_at IS NOT NULL;
CREATE TABLE {s}.workers (
  id text PRIMARY KEY,
  host text NOT NULL,
  keys text NOT NULL,
  slots integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {s}.counters (name text PRIMARY KEY, value bigint NOT NULL DEFAULT 0);
INSERT INTO {s}.counters (name) VALUES ('leases_taken'), ('leases_lost'), ('retries'), ('duplicates_dropped');
CREATE FUNCTION {s}.notify_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pg_notify('{s}_jobs', NEW.key_id);
  ELSIF NEW.state = 'queued' AND OLD.state <> 'queued' THEN
    PERFORM pg_notify('{s}_jobs', NEW.key_id);
  ELSIF NEW.state IN ('done', 'failed', 'cancelled') AND OLD.state NOT IN ('done', 'failed', 'cancelled') THEN
    PERFORM pg_notify('{s}_final', NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF state ON {s}.jobs
  FOR EACH ROW EXECUTE FUNCTION {s}.notify_job();
)sql",
};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kMigrationCount == kSchemaVersion);

}  // namespace

std::string sql(const std::string& schema, std::string text) {
  for (size_t at = text.find("{s}"); at != std::string::npos; at = text.find("{s}", at + schema.size()))
    text.replace(at, 3, schema);
  return text;
}

void ensure_schema(Connection& conn, const std::string& schema) {
  // One transaction under a lock keyed by the schema's name: the first process creates or
  // migrates, the others wait and then find the version current.
  conn.exec_simple("BEGIN");
  try {
    conn.exec("SELECT pg_advisory_xact_lock(hashtext('pacer-queue-schema:' || $1))", {Param::text(schema)});
    conn.exec_simple(sql(schema, "CREATE SCHEMA IF NOT EXISTS {s}; "
                                 "CREATE TABLE IF NOT EXISTS {s}.schema_version (version integer NOT NULL)"));
    const Result r = conn.exec(sql(schema, "SELECT coalesce(max(version), 0) FROM {s}.schema_version"));
    const int version = static_cast<int>(r.integer(0, 0));
    if (version > kSchemaVersion)
      throw FailedError(fmt::format("the queue's tables in schema {} are version {}, newer than this pacer knows ({}): "
                                    "upgrade pacer",
                                    schema, version, kSchemaVersion));
    for (int v = version; v < kSchemaVersion; ++v) {
      conn.exec_simple(sql(schema, kMigrations[v]));
      conn.exec(sql(schema, "INSERT INTO {s}.schema_version (version) VALUES ($1)"), {Param::text(std::to_string(v + 1))});
    }
    conn.exec_simple("COMMIT");
  } catch (const ConnectionLost&) {
    throw;  // the transaction died with the connection
  } catch (...) {
    try {
      conn.exec_simple("ROLLBACK");
    } catch (...) {
    }
    throw;
  }
}

bool open_queue(Connection& conn, const std::string& schema, spdlog::logger& log, const std::atomic<bool>* stop) {
  Backoff backoff;
  for (;;) {
    try {
      conn.ensure();
      ensure_schema(conn, schema);
      if (backoff.failing()) log.info("queue: database reachable again ({})", conn.masked());
      return true;
    } catch (const ConnectionLost& e) {
      if (!backoff.failing())
        log.warn("queue: cannot reach the database ({}): {}; retrying with backoff", conn.masked(), e.what());
      conn.drop();
    }
    const auto deadline = std::chrono::steady_clock::now() + backoff.next();
    while (std::chrono::steady_clock::now() < deadline) {
      if (stop && *stop) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

}  // namespace pacer::host::queue
