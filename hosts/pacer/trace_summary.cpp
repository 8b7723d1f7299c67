#include "trace_summary.hpp"

#include "bench_report.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "pacer/formats/json_input.hpp"
#include "pacer/printable.hpp"
#include "pacer/stages.hpp"

namespace pacer::host {

namespace {

using json = nlohmann::json;

// A name from a trace, for the terminal and the SVG: printable ASCII (printable()) with the XML
// markup characters replaced by '?'.
std::string trace_text(std::string_view text, size_t max_bytes) {
  std::string out = printable(text, max_bytes);
  for (char& c : out)
    if (c == '<' || c == '>' || c == '&' || c == '"' || c == '\'') c = '?';
  return out;
}

// A bench trace is ~1 KB per stage: 256 MB holds far more than any run (100 proofs: ~1 MB).
constexpr uint64_t kMaxTraceBytes = uint64_t(256) << 20;

double percentile(std::vector<double> v, size_t percent) {
  std::sort(v.begin(), v.end());
  return nearest_rank(v, percent);
}

std::string ms(double us) { return fmt::format("{:.1f} ms", us / 1e3); }

// Stage names in the engine's order, then any other name found (a set: a trace may hold many).
std::vector<std::string> stage_order(const TraceRun& run) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (int s = 0; s < kStageCount; ++s) {
    names.emplace_back(stage_name(static_cast<Stage>(s)));
    seen.insert(names.back());
  }
  for (const auto& st : run.stages)
    if (seen.insert(st.name).second) names.push_back(st.name);
  return names;
}

// Text for SVG content or an attribute value: the five markup characters as entities. (Names from
// a trace hold none, trace_text sees to that, so a place that forgets this still writes no markup;
// a path from the command line may hold anything, so it goes through printable() too.)
std::string xml(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> run_times(const TraceRun& run, const std::string& stage) {
  std::vector<double> v;
  for (const auto& s : run.stages)
    if (s.name == stage && !s.failed) v.push_back(s.dur_us - s.paused_us);
  return v;
}

const char* colour_of(const std::string& stage) {
  static const std::map<std::string, const char*> colours = {
      {"witness", "#66c2a5"},
      {"load", "#8da0cb"},      {"synthesize", "#e41a1c"}, {"compute_h", "#4daf4a"}, {"msm_g1", "#377eb8"},
      {"msm_g2", "#ff7f00"},    {"assemble", "#a65628"},   {"release", "#984ea3"}};
  const auto it = colours.find(stage);
  return it == colours.end() ? "#999999" : it->second;
}

}  // namespace

TraceRun read_trace(const std::string& path) {
  TraceRun run;
  run.source = path;
  json doc;
  try {
    // A trace nests 4 deep (traceEvents[i].args.*); bench writes ~20 values per stage.
    doc = parse_json_input(RegularFile(path).read_all(kMaxTraceBytes, "trace"), path,
                           {.max_depth = 8, .max_values = size_t(1) << 25}, "a JSON trace");
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}; give a file written by pacer bench --trace", e.what()));
  }
  try {
    const json& other = doc.at("otherData");
    // Names from the file are shown on a terminal and in the SVG: printable ASCII only.
    run.scheduler = trace_text(other.value("scheduler", "?"), 40);
    run.allocator = trace_text(other.value("allocator", "?"), 40);
    run.backend = trace_text(other.value("backend", "?"), 80);
    run.jobs = other.value("jobs", uint64_t(0));
    run.domain_size = other.value("domain_size", uint64_t(0));
    run.wall_seconds = other.value("wall_seconds", 0.0);
    run.cpu_seconds = other.value("cpu_seconds", 0.0);
    for (const json& e : doc.at("traceEvents")) {
      if (e.value("ph", "") != "X" || e.value("cat", "") != "stage") continue;
      const json& a = e.at("args");
      TraceStage s;
      s.name = trace_text(e.at("name").get<std::string>(), 40);
      s.job = a.at("job").get<uint64_t>();
      s.part = a.value("part", 0);
      s.worker = a.value("worker", e.at("tid").get<int>() - 1);
      s.lane = a.value("lane", -1);
      s.device = a.value("device", s.lane >= 0 ? 0 : -1);  // traces before devices: one device
      s.start_us = e.at("ts").get<double>();
      s.dur_us = e.at("dur").get<double>();
      s.queued_us = a.value("queued_us", 0.0);
      s.paused_us = a.value("paused_us", 0.0);
      s.bytes = a.value("bytes", uint64_t(0));
      s.minor_faults = a.value("minor_faults", uint64_t(0));
      s.bytes_released = a.value("bytes_released", uint64_t(0));
      s.failed = a.value("failed", false);
      run.stages.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not a pacer bench trace ({}); give a file written by pacer bench --trace", path,
                                 printable(e.what(), 160)));
  }
  if (run.stages.empty())
    throw InputError(fmt::format("{}: the trace has no stage events; give a file written by pacer bench --trace", path));
  return run;
}

// The share of the wall time in which a stage ran on some backend lane (for the cuda backend:
// the GPU stages, an upper bound of the GPU's busy time since a stage also waits for copies),
// and per lane. Empty when no stage ran on a lane.
// With several devices, the same per device (for several GPUs: is every GPU busy?).
static std::string lane_busy(const TraceRun& run, double wall_s) {
  std::map<int, std::vector<std::pair<double, double>>> by_lane, by_device;
  for (const auto& s : run.stages)
    if (s.lane >= 0) {
      by_lane[s.lane].emplace_back(s.start_us, s.start_us + s.dur_us);
      by_device[s.device].emplace_back(s.start_us, s.start_us + s.dur_us);
    }
  if (by_lane.empty() || wall_s <= 0) return {};
  std::vector<std::pair<double, double>> all;
  for (const auto& [lane, spans] : by_lane) all.insert(all.end(), spans.begin(), spans.end());
  auto covered = [](std::vector<std::pair<double, double>> spans) {  // length of the union
    std::sort(spans.begin(), spans.end());
    double total = 0, from = spans[0].first, to = spans[0].second;
    for (const auto& [a, b] : spans) {
      if (a > to) {
        total += to - from;
        from = a;
      }
      to = std::max(to, b);
    }
    return total + (to - from);
  };
  const double wall_us = wall_s * 1e6;
  std::string line = fmt::format("lanes      a stage on a lane {:.0f}% of the wall", 100 * covered(all) / wall_us);
  for (const auto& [lane, spans] : by_lane) line += fmt::format(", lane {} {:.0f}%", lane, 100 * covered(spans) / wall_us);
  line += "\n";
  if (by_device.size() > 1) {
    line += "devices    a stage on the device";
    for (const auto& [device, spans] : by_device)
      line += fmt::format("{} device {} {:.0f}%", device == by_device.begin()->first ? ":" : ",", device,
                          100 * covered(spans) / wall_us);
    line += "\n";
  }
  return line;
}

std::string format_trace_summary(const TraceRun& run, const TraceRun* alone) {
  std::set<uint64_t> jobs;
  double first = 1e300, last = 0, queued = 0, paused = 0;
  uint64_t faults = 0, released = 0;
  for (const auto& s : run.stages) {
    jobs.insert(s.job);
    first = std::min(first, s.start_us - s.queued_us);
    last = std::max(last, s.start_us + s.dur_us);
    queued += s.queued_us;
    paused += s.paused_us;
    faults += s.minor_faults;
    released += s.bytes_released;
  }
  const double proofs = double(jobs.size());
  const double wall = run.wall_seconds > 0 ? run.wall_seconds : (last - first) / 1e6;
  std::string t;
  auto out = std::back_inserter(t);
  fmt::format_to(out, "trace      {}: scheduler {}, allocator {}, backend {}, {} in flight, domain {}\n",
                 printable(run.source, 200), run.scheduler, run.allocator, run.backend, run.jobs, run.domain_size);
  fmt::format_to(out, "throughput {:.0f} proofs in {:.3f} s: {:.3f} proofs/s", proofs, wall, wall > 0 ? proofs / wall : 0);
  if (run.cpu_seconds > 0) fmt::format_to(out, ", CPU {:.3f} s per proof", run.cpu_seconds / proofs);
  fmt::format_to(out, "\nscheduler  waited {} per proof for admission, {} paused in checkpoints\n", ms(queued / proofs),
                 ms(paused / proofs));
  fmt::format_to(out, "memory     {:.0f} page faults per proof (stage threads), {:.1f} MiB released per proof\n",
                 double(faults) / proofs, double(released) / proofs / (1 << 20));
  if (const std::string lanes = lane_busy(run, wall); !lanes.empty()) fmt::format_to(out, "{}", lanes);
  fmt::format_to(out, "\n{:<11} {:>6} {:>11} {:>11} {:>11} {:>10}  {}\n", "stage", "tasks", "run p50", "run p95",
                 "alone p50", "inflation", alone ? "(alone: --alone trace, median)" : "(alone: fastest task here)");
  for (const std::string& name : stage_order(run)) {
    const auto times = run_times(run, name);
    if (times.empty()) continue;
    double base = 0;
    if (alone) base = percentile(run_times(*alone, name), 50);
    else base = *std::min_element(times.begin(), times.end());
    const double p50 = percentile(times, 50);
    fmt::format_to(out, "{:<11} {:>6} {:>11} {:>11} {:>11} {:>10}\n", name, times.size(), ms(p50),
                   ms(percentile(times, 95)), base > 0 ? ms(base) : "-",
                   base > 0 ? fmt::format("{:.2f}x", p50 / base) : "-");
  }
  return t;
}

std::string waterfall_svg(const TraceRun& run) {
  std::map<int, int> row_of;     // worker -> row
  std::map<int, int> lane_row;    // backend lane -> row, on top: its idle gaps show in red
  std::map<int, int> device_row;  // device -> row, above the workers, when there are several
  double first = 1e300, last = 0;
  for (const auto& s : run.stages) {
    row_of[s.worker] = 0;
    if (s.lane >= 0) lane_row[s.lane] = 0;
    if (s.device >= 0) device_row[s.device] = 0;
    first = std::min(first, s.start_us - s.queued_us);
    last = std::max(last, s.start_us + s.dur_us);
  }
  if (device_row.size() < 2) device_row.clear();
  int r = 0;
  for (auto& [lane, row] : lane_row) row = r++;
  for (auto& [device, row] : device_row) row = r++;
  for (auto& [worker, row] : row_of) row = r++;
  const int rows = r;
  const double left = 90, width = 1100, row_h = 18, top = 30;
  const double span = std::max(1.0, last - first);
  const double height = top + row_h * double(rows) + 70;
  auto x = [&](double us) { return left + (us - first) / span * width; };
  std::string svg;
  auto out = std::back_inserter(svg);
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
                 "font-family=\"sans-serif\" font-size=\"11\">\n",
                 left + width + 20, height);
  fmt::format_to(out, "<text x=\"{}\" y=\"16\">{}: scheduler {}, allocator {}, {} in flight, {:.0f} ms</text>\n", left,
                 xml(printable(run.source, 200)), xml(run.scheduler), xml(run.allocator), run.jobs, span / 1e3);
  for (const auto& [worker, row] : row_of)
    fmt::format_to(out, "<text x=\"4\" y=\"{:.1f}\">worker {}</text>\n", top + row_h * row + 13, worker);
  for (const auto& [device, row] : device_row)
    fmt::format_to(out, "<text x=\"4\" y=\"{:.1f}\">device {}</text>\n", top + row_h * row + 13, device);
  // Lane rows: red where the lane was idle, the stage's colour where one ran on it.
  for (const auto& [lane, row] : lane_row) {
    fmt::format_to(out, "<text x=\"4\" y=\"{:.1f}\">lane {}</text>\n", top + row_h * row + 13, lane);
    fmt::format_to(out, "<rect class=\"idle\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                   "fill=\"#f4a3a3\"><title>lane {} idle</title></rect>\n",
                   x(first), top + row_h * row + 1, x(last) - x(first), row_h - 4, lane);
  }
  for (const auto& s : run.stages) {
    const auto row = lane_row.find(s.lane);
    if (row == lane_row.end()) continue;
    fmt::format_to(out, "<rect class=\"lane\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                   "fill=\"{}\"><title>lane {}: proof {} {}</title></rect>\n",
                   x(s.start_us), top + row_h * row->second + 1,
                   std::max(0.5, x(s.start_us + s.dur_us) - x(s.start_us)), row_h - 4, colour_of(s.name), s.lane,
                   s.job, xml(s.name));
  }
  // Device rows: every stage that ran on one of the device's lanes, overlaid (busy where covered).
  for (const auto& s : run.stages) {
    const auto row = device_row.find(s.device);
    if (row == device_row.end()) continue;
    fmt::format_to(out, "<rect class=\"device\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                   "fill=\"{}\" opacity=\"0.5\"><title>device {} lane {}: proof {} {}</title></rect>\n",
                   x(s.start_us), top + row_h * row->second + 1,
                   std::max(0.5, x(s.start_us + s.dur_us) - x(s.start_us)), row_h - 4, colour_of(s.name), s.device,
                   s.lane, s.job, xml(s.name));
  }
  for (const auto& s : run.stages) {
    const double y = top + row_h * row_of[s.worker];
    if (s.queued_us > 0)  // the admission wait, before the stage, in the lower half of its row
      fmt::format_to(out, "<rect class=\"wait\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                     "fill=\"#bbbbbb\" opacity=\"0.6\"><title>proof {} {} waited {}</title></rect>\n",
                     x(s.start_us - s.queued_us), y + row_h / 2, std::max(0.5, x(s.start_us) - x(s.start_us - s.queued_us)),
                     row_h / 2 - 2, s.job, xml(s.name), ms(s.queued_us));
    fmt::format_to(out, "<rect class=\"stage\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" "
                   "stroke=\"#333\" stroke-width=\"0.3\"><title>proof {} {}{} lane {}: {} (paused {}, queued {})"
                   "</title></rect>\n",
                   x(s.start_us), y + 1, std::max(0.5, x(s.start_us + s.dur_us) - x(s.start_us)), row_h - 4,
                   colour_of(s.name), s.job, xml(s.name), s.name == "msm_g1" ? fmt::format(" part {}", s.part) : "", s.lane,
                   ms(s.dur_us), ms(s.paused_us), ms(s.queued_us));
    if (s.paused_us > 0)
      fmt::format_to(out, "<rect class=\"paused\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"3\" "
                     "fill=\"#000\"/>\n",
                     x(s.start_us), y + row_h - 6, std::max(0.5, x(s.start_us + s.paused_us) - x(s.start_us)));
  }
  const double axis = top + row_h * double(rows) + 12;
  fmt::format_to(out, "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#000\"/>\n", left, axis,
                 left + width, axis);
  for (int i = 0; i <= 10; ++i)
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\">{:.0f} ms</text>\n", left + width * i / 10 - 10, axis + 14,
                   span / 1e3 * i / 10);
  double lx = left;
  for (int s = 0; s < kStageCount; ++s) {
    const std::string name(stage_name(static_cast<Stage>(s)));
    fmt::format_to(out, "<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"{}\"/>"
                   "<text x=\"{:.0f}\" y=\"{:.1f}\">{}</text>\n",
                   lx, axis + 24, colour_of(name), lx + 15, axis + 33, name);
    lx += 110;
  }
  fmt::format_to(out, "<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"#bbbbbb\"/>"
                 "<text x=\"{:.0f}\" y=\"{:.1f}\">scheduler wait</text>\n",
                 lx, axis + 24, lx + 15, axis + 33);
  if (!lane_row.empty())
    fmt::format_to(out, "<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"#f4a3a3\"/>"
                   "<text x=\"{:.0f}\" y=\"{:.1f}\">lane idle</text>\n",
                   lx + 110, axis + 24, lx + 125, axis + 33);
  svg += "</svg>\n";
  return svg;
}

}  // namespace pacer::host
