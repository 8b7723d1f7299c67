#pragma once
// The queue's tables in their own schema ([queue] schema, default "pacer"), versioned: each start
// brings the database to kSchemaVersion under an advisory lock, so fronts and workers that start
// together do not race to create the same tables.
#include <atomic>
#include <string>

#include <spdlog/logger.h>

#include "pg.hpp"

namespace pacer::host::queue {

inline constexpr int kSchemaVersion = 1;

// Creates or migrates; FailedError when the database holds a newer version than this binary knows.
void ensure_schema(Connection& conn, const std::string& schema);

// Connects (waiting with backoff while the database is unreachable, logging the outage once) and
// brings the schema up to date. InputError when the server refuses the connection string.
// Returns false if `stop` became true while waiting.
bool open_queue(Connection& conn, const std::string& schema, spdlog::logger& log, const std::atomic<bool>* stop);

// The statements' text with "{s}" replaced by the schema name (a checked identifier: config.cpp).
std::string sql(const std::string& schema, std::string text);

}  // namespace pacer::host::queue
