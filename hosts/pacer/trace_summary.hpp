#pragma once
// A `pacer bench --trace` file read back (bench_report.cpp writes it), its summary, and its
// waterfall picture. Used by `pacer report`.
#include <cstdint>
#include <string>
#include <vector>

namespace pacer::host {

struct TraceStage {
  std::string name;  // stage name
  uint64_t job = 0;
  int part = 0, worker = 0, lane = -1, device = -1;
  double start_us = 0, dur_us = 0, queued_us = 0, paused_us = 0;
  uint64_t bytes = 0, minor_faults = 0, bytes_released = 0;
  bool failed = false;
};

struct TraceRun {
  std::string source;  // file name
  std::string scheduler, allocator, backend;
  uint64_t jobs = 0, domain_size = 0;
  double wall_seconds = 0, cpu_seconds = 0;
  std::vector<TraceStage> stages;
};

// Throws InputError naming the file for anything that is not such a trace.
TraceRun read_trace(const std::string& path);
// The report printed by `pacer report`; `alone` (may be null): the stage times alone.
std::string format_trace_summary(const TraceRun& run, const TraceRun* alone);
// SVG: a row per stage driver, a colour per stage, admission waits as grey bars before the stage
// on its row (lower half), pauses inside a stage as a dark band; a legend and a time axis. With
// several backend devices, a row per device on top holds the stages that ran on its lanes.
std::string waterfall_svg(const TraceRun& run);

}  // namespace pacer::host
