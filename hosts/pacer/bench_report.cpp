#include "bench_report.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "pacer/cpus.hpp"

namespace pacer::host {

// Integer arithmetic, so p95 of 20 samples is exactly the 19th.
double nearest_rank(const std::vector<double>& sorted, size_t percent) {
  if (sorted.empty()) return 0;
  const size_t rank = std::clamp<size_t>((percent * sorted.size() + 99) / 100, 1, sorted.size());
  return sorted[rank - 1];
}

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: the files are read by people too

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

// Microseconds since the bench start, rounded to the nanosecond so the trace stays short.
double micros_since(BenchClock::time_point start, BenchClock::time_point t) {
  return std::round(std::chrono::duration<double, std::micro>(t - start).count() * 1e3) / 1e3;
}
double micros(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e3; }

struct Spread {  // seconds
  size_t samples = 0;
  double p50 = 0, p95 = 0, max = 0, min = 0, mean = 0;
};

Spread spread_of(std::vector<double> values) {
  Spread s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.samples = values.size();
  s.p50 = nearest_rank(values, 50);
  s.p95 = nearest_rank(values, 95);
  s.min = values.front();
  s.max = values.back();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return s;
}

// One stage over all timed proofs. wall: admission asked -> ended (queue waits included);
// run: let in -> ended (admission wait excluded, checkpoint pauses included); queued; paused.
struct StageSpread {
  Stage stage = Stage::load;
  Spread wall, run, queued, paused;
  uint64_t bytes_per_proof = 0;
};

std::vector<StageSpread> stage_spreads(const BenchRun& run) {
  std::vector<StageSpread> out;
  for (int s = 0; s < kStageCount; ++s) {
    std::vector<double> wall, ran, queued, paused;
    uint64_t bytes = 0;
    for (const ProofSample& proof : run.samples)
      for (const StageRecord& r : proof.stages) {
        if (static_cast<int>(r.stage) != s) continue;
        wall.push_back(seconds(r.ended_at - r.admitted_at));
        ran.push_back(seconds(r.ended_at - r.started_at));
        queued.push_back(seconds(r.started_at - r.admitted_at));
        paused.push_back(seconds(r.paused));
        bytes += r.bytes;
      }
    if (wall.empty()) continue;  // a stage this engine never ran
    const uint64_t count = wall.size();
    out.push_back({static_cast<Stage>(s), spread_of(std::move(wall)), spread_of(std::move(ran)),
                   spread_of(std::move(queued)), spread_of(std::move(paused)), bytes / count});
  }
  return out;
}

Spread latency_spread(const BenchRun& run) {
  std::vector<double> latencies;
  for (const ProofSample& p : run.samples) latencies.push_back(seconds(p.ended_at - p.started_at));
  return spread_of(std::move(latencies));
}

double wall_seconds(const BenchRun& run) { return seconds(run.ended_at - run.started_at); }
size_t retried_proofs(const BenchRun& run) {
  return size_t(
      std::count_if(run.samples.begin(), run.samples.end(), [](const ProofSample& p) { return p.attempts > 1; }));
}

double proofs_per_second(const BenchRun& run) {
  const double wall = wall_seconds(run);
  return wall > 0 ? static_cast<double>(run.samples.size()) / wall : 0;
}

std::string human_seconds(double s) {
  return human_duration(std::chrono::nanoseconds(static_cast<int64_t>(std::llround(s * 1e9))));
}
std::string human_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

json spread_json(const Spread& s) { return json{{"p50", s.p50}, {"p95", s.p95}, {"max", s.max}}; }

// "VmHWM:   123456 kB" -> bytes; 0 when the file or the line is missing (not Linux).
uint64_t read_vm_hwm_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  return 0;
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// Total length of the union of [begin, end) spans.
double covered_seconds(std::vector<std::pair<BenchClock::time_point, BenchClock::time_point>> spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0;
  BenchClock::time_point reach{};
  bool any = false;
  for (const auto& [begin, end] : spans) {
    const auto from = any ? std::max(begin, reach) : begin;
    if (end > from) total += seconds(end - from);
    reach = any ? std::max(reach, end) : end;
    any = true;
  }
  return total;
}

}  // namespace

std::vector<LaneUse> lane_use(const BenchRun& run) {
  std::map<int, std::vector<std::pair<BenchClock::time_point, BenchClock::time_point>>> spans;
  std::map<int, int> device;
  for (const ProofSample& proof : run.samples)
    for (const StageRecord& r : proof.stages) {
      if (r.lane < 0) continue;
      const auto begin = std::max(r.started_at, run.started_at), end = std::min(r.ended_at, run.ended_at);
      spans[r.lane].emplace_back(begin, std::max(begin, end));
      device[r.lane] = std::max(r.device, 0);
    }
  const double wall = wall_seconds(run);
  std::vector<LaneUse> out;
  for (auto& [lane, s] : spans) {
    LaneUse u;
    u.lane = lane;
    u.device = device[lane];
    u.busy_seconds = covered_seconds(std::move(s));
    u.busy_fraction = wall > 0 ? u.busy_seconds / wall : 0;
    out.push_back(u);
  }
  return out;
}

// The time a proof held its lane busy: the union of its lane stages, which may run side by side
// (the cpu backend's A, B1 and C MSMs on small keys).
double lane_seconds_per_proof(const BenchRun& run) {
  if (run.samples.empty()) return 0;
  double total = 0;
  for (const ProofSample& proof : run.samples) {
    std::vector<std::pair<BenchClock::time_point, BenchClock::time_point>> spans;
    for (const StageRecord& r : proof.stages)
      if (r.lane >= 0) spans.emplace_back(r.started_at, std::max(r.started_at, r.ended_at));
    total += covered_seconds(std::move(spans));
  }
  return total / double(run.samples.size());
}

double cpu_seconds_per_proof(const BenchRun& run) {
  if (run.samples.empty()) return 0;
  const double cpu = (run.usage_after.user_seconds - run.usage_before.user_seconds) +
                     (run.usage_after.system_seconds - run.usage_before.system_seconds);
  return cpu / double(run.samples.size());
}

MachineInfo probe_machine() {
  MachineInfo m;
  m.cores = available_cpus();
  m.machine_cores = std::thread::hardware_concurrency();
  m.cpu_model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      m.cpu_model = trim(line.substr(line.find(':') + 1));
      break;
    }
  char host[256] = {};
  m.hostname = ::gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
  struct utsname uts {};
  m.os = ::uname(&uts) == 0 ? fmt::format("{} {} {}", uts.sysname, uts.release, uts.machine) : "unknown";
  return m;
}

ResourceUsage probe_resource_usage() {
  ResourceUsage u;
  struct rusage ru {};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
    u.user_seconds = secs(ru.ru_utime);
    u.system_seconds = secs(ru.ru_stime);
    u.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
    u.max_rss_bytes = static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports kB
  }
  u.vm_hwm_bytes = read_vm_hwm_bytes();
  return u;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::string joined;
  size_t begin = 0;
  while (begin < raw.size()) {
    size_t end = raw.find('\0', begin);
    if (end == std::string::npos) end = raw.size();
    std::string arg = raw.substr(begin, end - begin);
    // Quote what a shell would split, so the command can be pasted back.
    if (arg.empty() || arg.find_first_of(" \t\"'$*?") != std::string::npos) arg = "'" + arg + "'";
    joined += (joined.empty() ? "" : " ") + arg;
    begin = end + 1;
  }
  return joined.empty() ? "pacer bench" : joined;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string format_table(const BenchRun& run) {
  std::string t;
  auto out = std::back_inserter(t);
  const Spread latency = latency_spread(run);
  const ResourceUsage& u = run.usage_after;
  const double timed_user = u.user_seconds - run.usage_before.user_seconds;
  const double timed_sys = u.system_seconds - run.usage_before.system_seconds;

  fmt::format_to(out, "pacer bench, {} on {}\n", run.date_utc, run.machine.hostname);
  const std::string of_machine =
      run.machine.machine_cores > run.machine.cores ? fmt::format(" of {}", run.machine.machine_cores) : "";
  fmt::format_to(out, "{:<10} {}{} cores, {} ({})\n", "machine", run.machine.cores, of_machine, run.machine.cpu_model,
                 run.machine.os);
  fmt::format_to(out, "{:<10} {}: backend {} ({}; {} lane{}), allocator {}, scheduler {}, {} pool threads\n", "config",
                 run.config_source, run.backend, fmt::join(run.backend_devices, ", "), run.backend_lanes,
                 run.backend_lanes == 1 ? "" : "s", run.allocator, run.scheduler, run.cpu_pool_threads);
  fmt::format_to(out, "{:<10} {}: {}, {} wires ({} public), domain {}; loaded in {}\n", "key", run.key_path, run.curve,
                 run.n_vars, run.n_public, run.domain_size, human_duration(run.key_load));
  fmt::format_to(out, "{:<10} {} proofs ({} witness{}), {} in flight, {} warm-up\n", "run", run.proofs,
                 run.witnesses.size(), run.witnesses.size() == 1 ? "" : "es", run.jobs, run.warmup);
  fmt::format_to(out, "{:<10} {}, {:.2f} proofs/s\n", "wall", human_seconds(wall_seconds(run)), proofs_per_second(run));
  if (const size_t retried = retried_proofs(run))
    fmt::format_to(out, "{:<10} {} proof{} ran again after a device failure (the log says which device)\n", "retried",
                   retried, retried == 1 ? "" : "s");
  fmt::format_to(out, "{:<10} p50 {}, p95 {}, max {}\n", "latency", human_seconds(latency.p50),
                 human_seconds(latency.p95), human_seconds(latency.max));
  fmt::format_to(out, "{:<10} peak RSS {} (ru_maxrss), VmHWM {}\n", "memory", human_bytes(u.max_rss_bytes),
                 u.vm_hwm_bytes ? human_bytes(u.vm_hwm_bytes) : "n/a");
  fmt::format_to(out, "{:<10} {:.2f} s user + {:.2f} s sys during the proofs ({:.2f} s + {:.2f} s in all): {:.3f} s "
                 "a proof\n", "cpu", timed_user, timed_sys, u.user_seconds, u.system_seconds, cpu_seconds_per_proof(run));
  if (const auto lanes = lane_use(run); !lanes.empty()) {
    std::string busy;
    for (const LaneUse& l : lanes)
      busy += fmt::format("{}lane {} (device {}) {:.0f}%", busy.empty() ? "" : ", ", l.lane, l.device,
                          100 * l.busy_fraction);
    const double per_proof = lane_seconds_per_proof(run);
    fmt::format_to(out, "{:<10} busy: {}; {} of lane stages a proof{}\n", "lanes", busy, human_seconds(per_proof),
                   run.jobs == 1 && per_proof > 0 ? fmt::format(" (alone: at most {:.2f} proofs/s)", 1 / per_proof) : "");
  }
  const double per_proof = run.proofs ? 1.0 / double(run.proofs) : 0;
  const AllocStats& a0 = run.alloc_before;
  const AllocStats& a1 = run.alloc_after;
  fmt::format_to(out, "{:<10} per proof: {:.0f} page faults, {:.3f} s sys; allocator: {} fresh, {} reused, {} released "
                 "in {:.1f} munmaps; {} on huge pages\n",
                 "faults", double(u.minor_faults - run.usage_before.minor_faults) * per_proof, timed_sys * per_proof,
                 human_bytes(uint64_t(double(a1.fresh_bytes - a0.fresh_bytes) * per_proof)),
                 human_bytes(uint64_t(double(a1.reused_bytes - a0.reused_bytes) * per_proof)),
                 human_bytes(uint64_t(double(a1.released_bytes - a0.released_bytes) * per_proof)),
                 double(a1.unmaps - a0.unmaps) * per_proof,
                 human_bytes(uint64_t(double(a1.hugepage_bytes - a0.hugepage_bytes) * per_proof)));

  // wall: from asking the scheduler to the end; run: from admission to the end.
  fmt::format_to(out, "\n{:<11} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}\n", "stage", "wall p50", "wall p95",
                 "run p50", "run p95", "queued p95", "paused p95");
  for (const StageSpread& s : stage_spreads(run))
    fmt::format_to(out, "{:<11} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}\n", stage_name(s.stage),
                   human_seconds(s.wall.p50), human_seconds(s.wall.p95), human_seconds(s.run.p50),
                   human_seconds(s.run.p95), human_seconds(s.queued.p95), human_seconds(s.paused.p95));
  return t;
}

std::string summary_json(const BenchRun& run) {
  const Spread latency = latency_spread(run);
  const ResourceUsage& u = run.usage_after;
  json j;
  j["command"] = run.command;
  j["date"] = run.date_utc;
  j["hostname"] = run.machine.hostname;
  j["machine"] = json{{"cores", run.machine.cores}, {"machine_cores", run.machine.machine_cores}, {"cpu_model", run.machine.cpu_model}, {"os", run.machine.os}};
  j["config"] = json{{"source", run.config_source},
                     {"backend", run.backend},
                     {"backend_devices", run.backend_devices},
                     {"backend_lanes", run.backend_lanes},
                     {"allocator", run.allocator},
                     {"scheduler", run.scheduler},
                     {"cpu_pool_threads", run.cpu_pool_threads}};
  j["key"] = json{{"path", run.key_path},      {"curve", run.curve},
                  {"n_vars", run.n_vars},      {"n_public", run.n_public},
                  {"domain_size", run.domain_size}, {"load_seconds", seconds(run.key_load)}};
  j["witnesses"] = run.witnesses;
  j["proofs"] = run.proofs;
  j["jobs"] = run.jobs;
  j["warmup"] = run.warmup;
  j["wall_seconds"] = wall_seconds(run);
  j["proofs_per_second"] = proofs_per_second(run);
  j["retried_proofs"] = retried_proofs(run);
  json latency_json = spread_json(latency);
  latency_json["min"] = latency.min;
  latency_json["mean"] = latency.mean;
  j["latency_seconds"] = latency_json;
  json stages = json::object();
  for (const StageSpread& s : stage_spreads(run))
    stages[std::string(stage_name(s.stage))] = json{{"samples", s.wall.samples},
                                                    {"resource", std::string(resource_name(default_resource(s.stage)))},
                                                    {"wall_seconds", spread_json(s.wall)},
                                                    {"run_seconds", spread_json(s.run)},
                                                    {"queued_seconds", spread_json(s.queued)},
                                                    {"paused_seconds", spread_json(s.paused)},
                                                    {"bytes_per_proof", s.bytes_per_proof}};
  j["stages"] = stages;
  j["memory"] = json{{"peak_rss_bytes", u.max_rss_bytes}, {"vm_hwm_bytes", u.vm_hwm_bytes}};
  json lanes = json::array();
  for (const LaneUse& l : lane_use(run))
    lanes.push_back(json{{"lane", l.lane}, {"device", l.device}, {"busy_seconds", l.busy_seconds},
                         {"busy_fraction", l.busy_fraction}});
  j["lanes"] = std::move(lanes);
  j["lane_seconds_per_proof"] = lane_seconds_per_proof(run);
  j["cpu"] = json{{"seconds_per_proof", cpu_seconds_per_proof(run)},
                  {"user_seconds", u.user_seconds - run.usage_before.user_seconds},
                  {"system_seconds", u.system_seconds - run.usage_before.system_seconds},
                  {"process_user_seconds", u.user_seconds},
                  {"process_system_seconds", u.system_seconds},
                  {"minor_faults", u.minor_faults - run.usage_before.minor_faults}};
  // The allocator's counters over the timed proofs (live, peak and cached: as they stood at the end).
  json alloc = json::object();
  for_each_stat(run.alloc_after, [&](const char* name, uint64_t after) { alloc[name] = after; });
  for_each_stat(run.alloc_before, [&](const char* name, uint64_t before) {
    const std::string key = name;
    if (key != "live_bytes" && key != "peak_bytes" && key != "cached_bytes")
      alloc[key] = alloc[key].get<uint64_t>() - before;
  });
  j["allocator"] = alloc;
  return j.dump(2) + "\n";
}

std::string trace_json(const BenchRun& run) {
  // Rows (tid) of pid 1: the engine's stage drivers, numbered as they first ran a stage, so every
  // bar on a row ran on one thread and no two overlap. Admission waits go on pid 2, one row per
  // proof: while a stage waits it holds no thread.
  json trace_events = json::array();
  trace_events.push_back(json{{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", json{{"name", "stage drivers"}}}});
  trace_events.push_back(
      json{{"name", "process_name"}, {"ph", "M"}, {"pid", 2}, {"args", json{{"name", "scheduler waits (per proof)"}}}});
  std::map<int, bool> workers;
  for (const ProofSample& proof : run.samples)
    for (const StageRecord& r : proof.stages) workers[r.worker] = true;
  for (const auto& [worker, _] : workers)
    trace_events.push_back(json{{"name", "thread_name"},
                                {"ph", "M"},
                                {"pid", 1},
                                {"tid", worker + 1},
                                {"args", json{{"name", fmt::format("worker {}", worker)}}}});
  for (const ProofSample& proof : run.samples) {
    trace_events.push_back(json{{"name", "thread_name"},
                                {"ph", "M"},
                                {"pid", 2},
                                {"tid", proof.job},
                                {"args", json{{"name", fmt::format("proof {}", proof.job)}}}});
    for (const StageRecord& r : proof.stages) {
      const auto queued = r.started_at - r.admitted_at;
      if (queued.count() > 0)
        trace_events.push_back(json{{"name", "queued"},
                                    {"cat", "queue"},
                                    {"ph", "X"},
                                    {"ts", micros_since(run.started_at, r.admitted_at)},
                                    {"dur", micros(queued)},
                                    {"pid", 2},
                                    {"tid", proof.job},
                                    {"args", json{{"job", proof.job}, {"stage", std::string(stage_name(r.stage))},
                                                  {"part", r.part}, {"worker", r.worker}}}});
      trace_events.push_back(json{{"name", std::string(stage_name(r.stage))},
                                  {"cat", "stage"},
                                  {"ph", "X"},
                                  {"ts", micros_since(run.started_at, r.started_at)},
                                  {"dur", micros(r.ended_at - r.started_at)},
                                  {"pid", 1},
                                  {"tid", r.worker + 1},
                                  {"args", json{{"job", proof.job},
                                                {"part", r.part},
                                                {"worker", r.worker},
                                                {"lane", r.lane},
                                                {"device", r.device},
                                                {"queued_us", micros(queued)},
                                                {"paused_us", micros(r.paused)},
                                                {"bytes", r.bytes},
                                                {"minor_faults", r.minor_faults},
                                                {"bytes_released", r.bytes_released},
                                                {"failed", r.failed},
                                                {"attempt", r.attempt}}}});
    }
  }
  json trace;
  trace["traceEvents"] = std::move(trace_events);
  trace["displayTimeUnit"] = "ms";
  trace["otherData"] = json{{"command", run.command},
                            {"date", run.date_utc},
                            {"hostname", run.machine.hostname},
                            {"proofs", run.proofs},
                            {"jobs", run.jobs},
                            {"backend", run.backend},
                            {"allocator", run.allocator},
                            {"scheduler", run.scheduler},
                            {"cpu_pool_threads", run.cpu_pool_threads},
                            {"domain_size", run.domain_size},
                            {"wall_seconds", wall_seconds(run)},
                            {"cpu_seconds", (run.usage_after.user_seconds - run.usage_before.user_seconds) +
                                                (run.usage_after.system_seconds - run.usage_before.system_seconds)},
                            {"cpu_seconds_per_proof", cpu_seconds_per_proof(run)}};
  return trace.dump() + "\n";
}

}  // namespace pacer::host
