#include "metrics.hpp"

#include <fmt/format.h>

namespace pacer::host::serve {

namespace {

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

void header(std::string& out, const char* name, const char* type, const char* help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string_view outcome_name(Outcome o) {
  constexpr std::string_view names[] = {"done", "failed", "cancelled"};
  return names[static_cast<int>(o)];
}

Histogram::Histogram() {
  for (double b = 1e-4; b < 150; b *= 2.5) bounds_.push_back(b);
  counts_.assign(bounds_.size() + 1, 0);
}

void Histogram::observe(double seconds) {
  size_t i = 0;
  while (i < bounds_.size() && seconds > bounds_[i]) ++i;
  std::lock_guard lock(mu_);
  ++counts_[i];
  sum_ += seconds;
  ++count_;
}

void Histogram::render(std::string& out, const std::string& name, const std::string& labels) const {
  std::lock_guard lock(mu_);
  const std::string sep = labels.empty() ? "" : ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    fmt::format_to(std::back_inserter(out), "{}_bucket{{{}{}le=\"{:g}\"}} {}\n", name, labels, sep, bounds_[i],
                   cumulative);
  }
  cumulative += counts_.back();
  fmt::format_to(std::back_inserter(out), "{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name, labels, sep, cumulative);
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  fmt::format_to(std::back_inserter(out), "{}_sum{} {:.6f}\n{}_count{} {}\n", name, braces, sum_, name, braces, count_);
}

void Metrics::response(unsigned status) {
  std::lock_guard lock(responses_mu_);
  ++responses_[status];
}

void Metrics::proof(const ProofOutput& out) {
  proof_seconds_.observe(seconds(out.ended_at - out.started_at));
  if (out.attempts > 1) ++retried_;
  for (const StageRecord& r : out.stages) {
    stage_seconds_[static_cast<int>(r.stage)].observe(seconds(r.ended_at - r.started_at));
    scheduler_wait_.observe(seconds(r.started_at - r.admitted_at));
  }
}

std::string Metrics::render(const Gauges& g) const {
  std::string out;
  auto it = std::back_inserter(out);
  header(out, "pacer_proofs_submitted_total", "counter", "Proofs accepted (202).");
  fmt::format_to(it, "pacer_proofs_submitted_total {}\n", submitted_.load());
  header(out, "pacer_proofs_total", "counter", "Proofs that reached a final state, by outcome.");
  for (int o = 0; o < kOutcomeCount; ++o)
    fmt::format_to(it, "pacer_proofs_total{{outcome=\"{}\"}} {}\n", outcome_name(static_cast<Outcome>(o)),
                   outcomes_[o].load());
  header(out, "pacer_proofs_retried_total", "counter",
         "Proofs that ran again on another backend device after theirs failed (counted when done).");
  fmt::format_to(it, "pacer_proofs_retried_total {}\n", retried_.load());
  header(out, "pacer_http_responses_total", "counter", "HTTP responses sent, by status code.");
  {
    std::lock_guard lock(responses_mu_);
    for (const auto& [status, n] : responses_) fmt::format_to(it, "pacer_http_responses_total{{code=\"{}\"}} {}\n", status, n);
  }
  header(out, "pacer_queue_depth", "gauge", "Proofs waiting for the engine.");
  fmt::format_to(it, "pacer_queue_depth {}\n", g.queued);
  header(out, "pacer_proofs_in_flight", "gauge", "Proofs the engine is running.");
  fmt::format_to(it, "pacer_proofs_in_flight {}\n", g.running);
  header(out, "pacer_results_kept", "gauge", "Finished proofs kept until their results expire.");
  fmt::format_to(it, "pacer_results_kept {}\n", g.kept);
  header(out, "pacer_backend_lanes_in_service", "gauge",
         "Backend lanes still in service (a failed device's lanes are taken out).");
  fmt::format_to(it, "pacer_backend_lanes_in_service {}\n", g.lanes_in_service);
  header(out, "pacer_http_connections", "gauge", "Open HTTP connections.");
  fmt::format_to(it, "pacer_http_connections {}\n", g.connections);
  header(out, "pacer_allocator_bytes", "gauge", "Bytes of the [allocator]: live now, peak, on huge pages.");
  fmt::format_to(it, "pacer_allocator_bytes{{kind=\"live\"}} {}\npacer_allocator_bytes{{kind=\"peak\"}} {}\n"
                     "pacer_allocator_bytes{{kind=\"hugepage\"}} {}\n",
                 g.allocator_live, g.allocator_peak, g.allocator_hugepage);
  header(out, "pacer_resident_memory_bytes", "gauge", "Resident set size of the daemon.");
  fmt::format_to(it, "pacer_resident_memory_bytes {}\n", g.resident_bytes);

  header(out, "pacer_proof_duration_seconds", "histogram", "Time from a proof's start in the engine to its end.");
  proof_seconds_.render(out, "pacer_proof_duration_seconds", "");
  header(out, "pacer_queue_wait_seconds", "histogram", "Time a proof waited in the daemon's queue.");
  queue_wait_.render(out, "pacer_queue_wait_seconds", "");
  header(out, "pacer_stage_duration_seconds", "histogram", "Time each stage ran, scheduler waits excluded.");
  for (int s = 0; s < kStageCount; ++s)
    stage_seconds_[s].render(out, "pacer_stage_duration_seconds",
                             fmt::format("stage=\"{}\"", stage_name(static_cast<Stage>(s))));
  header(out, "pacer_scheduler_wait_seconds", "histogram", "Time a stage waited for the scheduler to admit it.");
  scheduler_wait_.render(out, "pacer_scheduler_wait_seconds", "");
  return out;
}

}  // namespace pacer::host::serve
