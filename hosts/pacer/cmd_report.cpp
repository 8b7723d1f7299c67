// `pacer report TRACE [--svg FILE] [--alone TRACE]`: reads a `pacer bench --trace` file back and
// prints what the run did: proofs/s, CPU time per proof, per-stage p50/p95, each stage's
// inflation against its time alone, the time spent waiting on the scheduler, page faults and bytes
// released; --svg draws the waterfall (a row per stage driver, a colour per stage, waits visible).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "trace_summary.hpp"

namespace pacer::host {

namespace {

struct Options {
  std::string trace;
  std::string svg;
  std::string alone;
};

int run_report(const Options& options) {
  std::vector<NamedFile> inputs{{"trace", options.trace}}, outputs;
  if (!options.alone.empty()) inputs.push_back({"--alone", options.alone});
  if (!options.svg.empty()) outputs.push_back({"--svg", options.svg});
  pacer::check_outputs(inputs, outputs);
  const TraceRun run = read_trace(options.trace);
  const TraceRun* alone = nullptr;
  TraceRun alone_run;
  if (!options.alone.empty()) {
    alone_run = read_trace(options.alone);
    alone = &alone_run;
  }
  std::fputs(format_trace_summary(run, alone).c_str(), stdout);
  std::fflush(stdout);
  if (!options.svg.empty()) write_text_file(options.svg, waterfall_svg(run));
  return 0;
}

}  // namespace

Subcommand add_report_command(CLI::App& root) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = root.add_subcommand(
      "report",
      "Summarise a `pacer bench --trace` file: proofs/s, stage p50/p95, each stage's inflation against\n"
      "its time alone (the fastest run of that stage in the trace, or --alone TRACE's median, e.g. a\n"
      "--jobs 1 run), scheduler waits, page faults; --svg draws the waterfall.");
  cmd->add_option("trace", options->trace, "trace JSON written by pacer bench --trace")->required();
  cmd->add_option("--svg", options->svg, "write the waterfall picture (SVG) to this file");
  cmd->add_option("--alone", options->alone, "a trace of the same key at --jobs 1: the stage times alone");
  return {cmd, [options] { return run_report(*options); }};
}

}  // namespace pacer::host
