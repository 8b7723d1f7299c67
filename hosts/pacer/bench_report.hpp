#pragma once
// What one `pacer bench` run measured, and its three renderings: a table for people (stdout), a
// summary JSON for docs/benchmarks.md, and a Chrome trace-event JSON for Perfetto. Kept apart from
// cmd_bench.cpp so that the numbers are computed in one place and every rendering agrees.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pacer/prover.hpp"

namespace pacer::host {

// Nearest-rank percentile of ascending samples: the smallest sample with at least `percent`% of
// the samples at or below it (bench tables and `pacer report` alike).
double nearest_rank(const std::vector<double>& sorted, size_t percent);

using BenchClock = std::chrono::steady_clock;

// One timed proof: when Prover::prove was called and returned, and its stage records.
struct ProofSample {
  JobId job = 0;
  size_t witness_index = 0;
  BenchClock::time_point started_at, ended_at;
  std::vector<StageRecord> stages;
  unsigned attempts = 1;  // 2: run again after a device failure
};

struct MachineInfo {
  unsigned cores = 0;          // available_cpus(): what this process may run on
  unsigned machine_cores = 0;  // std::thread::hardware_concurrency
  std::string cpu_model;       // /proc/cpuinfo "model name", or "unknown"
  std::string hostname;
  std::string os;              // uname: "Linux 6.8.0 x86_64"
};
MachineInfo probe_machine();

struct ResourceUsage {
  double user_seconds = 0, system_seconds = 0;  // getrusage(RUSAGE_SELF)
  uint64_t minor_faults = 0;                    // ru_minflt: pages the kernel had to back
  uint64_t max_rss_bytes = 0;                   // ru_maxrss (kB on Linux, stored as bytes)
  uint64_t vm_hwm_bytes = 0;                    // VmHWM of /proc/self/status; 0 where there is none
};
ResourceUsage probe_resource_usage();

// The argv of this process joined with spaces (from /proc/self/cmdline), for "command".
std::string command_line();
// Now, UTC, ISO-8601 to the second: "2025-01-31T12:34:56Z".
std::string utc_now_iso8601();

struct BenchRun {
  std::string command;
  std::string date_utc;
  MachineInfo machine;

  std::string config_source;  // config file, or "(built-in defaults)"
  std::string backend, allocator, scheduler;
  std::vector<std::string> backend_devices;
  unsigned backend_lanes = 1;
  unsigned cpu_pool_threads = 0;

  std::string key_path;
  std::string curve;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  std::chrono::nanoseconds key_load{0};

  std::vector<std::string> witnesses;
  size_t proofs = 0, jobs = 0, warmup = 0;

  BenchClock::time_point started_at, ended_at;  // the timed proofs only (warm-up excluded)
  std::vector<ProofSample> samples;             // one per timed proof, by proof index
  ResourceUsage usage_before, usage_after;      // around the timed proofs
  AllocStats alloc_before, alloc_after;         // the [allocator]'s own counters, around them too
};

// How busy each backend lane was over the timed proofs: the union of the stages that ran on it
// (synthesis, compute_h and the MSMs on a GPU's stream), clipped to the run's window.
struct LaneUse {
  int lane = 0, device = 0;
  double busy_seconds = 0, busy_fraction = 0;
};
std::vector<LaneUse> lane_use(const BenchRun& run);
// Mean over the timed proofs of the time their stages ran on a lane (one proof's device time; at
// --jobs 1 its inverse is the throughput the device alone allows).
double lane_seconds_per_proof(const BenchRun& run);
// CPU seconds (user + system) of the whole process during the timed proofs, per proof.
double cpu_seconds_per_proof(const BenchRun& run);

// The human table (stdout).
std::string format_table(const BenchRun& run);
// The machine-readable summary: the table's numbers, in seconds and bytes.
std::string summary_json(const BenchRun& run);
// Chrome trace events: one "X" event (cat "stage", pid 1, a row per stage driver) per stage task
// of every proof, plus one (cat "queue", name "queued", pid 2, a row per proof) per admission wait
// longer than zero; ts/dur in microseconds since started_at. `pacer report` reads it back.
std::string trace_json(const BenchRun& run);

}  // namespace pacer::host
