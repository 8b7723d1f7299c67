#pragma once
// What `pacer serve` counts for GET /metrics (Prometheus text format 0.0.4): proofs by outcome,
// HTTP responses by status, and histograms of proof, queue-wait, stage and scheduler-wait times.
// Gauges (queue depth, allocator bytes...) are read at scrape time by the caller and passed in.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pacer/prover.hpp"
#include "pacer/stages.hpp"

namespace pacer::host::serve {

enum class Outcome : uint8_t { done, failed, cancelled };
inline constexpr int kOutcomeCount = 3;
std::string_view outcome_name(Outcome o);

// Cumulative buckets over fixed upper bounds, in seconds.
class Histogram {
 public:
  Histogram();  // 100 us .. ~100 s, factor ~2.5
  void observe(double seconds);
  // Appends the _bucket/_sum/_count lines of `name` with `labels` ("" or `stage="load"`).
  void render(std::string& out, const std::string& name, const std::string& labels) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; last = above every bound
  double sum_ = 0;
  uint64_t count_ = 0;
};

// Values read when /metrics is scraped.
struct Gauges {
  size_t queued = 0, running = 0, kept = 0;
  uint64_t allocator_live = 0, allocator_peak = 0, allocator_hugepage = 0;
  uint64_t resident_bytes = 0;  // the process's RSS
  size_t connections = 0;
  unsigned lanes_in_service = 0;  // backend lanes not taken out by a device failure
};

class Metrics {
 public:
  void submitted() { ++submitted_; }
  void ended(Outcome o) { ++outcomes_[static_cast<int>(o)]; }
  void response(unsigned status);
  void queue_wait(double seconds) { queue_wait_.observe(seconds); }
  // A proof the engine returned: its total time and every stage record.
  void proof(const ProofOutput& out);

  std::string render(const Gauges& g) const;

 private:
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> retried_{0};  // proofs done on a second attempt
  std::array<std::atomic<uint64_t>, kOutcomeCount> outcomes_{};
  mutable std::mutex responses_mu_;
  std::map<unsigned, uint64_t> responses_;
  Histogram proof_seconds_, queue_wait_, scheduler_wait_;
  std::array<Histogram, kStageCount> stage_seconds_;
};

}  // namespace pacer::host::serve
