#pragma once
// A deterministic simulation of many proofs under a scheduler: a fake clock with timers
// (pacer::Timekeeper), proofs as graphs of stages, and a contention model in which the running
// membw stages share a total bandwidth that depends on how many of them run. No threads and no
// wall-clock time: a run is a function of its inputs, so the scheduler tests are exact.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "pacer/scheduler.hpp"

namespace sim {

using pacer::ResourceClass;
using pacer::Stage;
using Clock = pacer::Timekeeper::Clock;

class SimTime final : public pacer::Timekeeper {
 public:
  Clock::time_point now() const override { return at(seconds); }
  void call_at(Clock::time_point when, std::function<void()> fn) override {
    timers.emplace(std::make_pair(when, next_timer++), std::move(fn));
  }
  static Clock::time_point at(double s) {
    return Clock::time_point(std::chrono::nanoseconds(int64_t(std::llround(s * 1e9))));
  }
  static double secs(Clock::time_point t) { return double(t.time_since_epoch().count()) / 1e9; }

  double seconds = 0;
  uint64_t next_timer = 0;
  std::multimap<std::pair<Clock::time_point, uint64_t>, std::function<void()>> timers;
};

// One stage of a simulated proof. membw stages do `work` bytes at the model's shared bandwidth;
// the others take `work` seconds whatever else runs.
struct StageSpec {
  Stage stage;
  ResourceClass cls;
  double work;
  std::vector<int> deps;  // indices into the proof's stages
  int priority = 0;
  int chunks = 8;  // checkpoints: one before each chunk after the first
};

// Total bytes/s the running membw stages share, as a function of how many run.
using Bandwidth = std::function<double(unsigned running)>;

// Throughput rises linearly up to `knee` stages, then falls by `drop` of the peak per stage more.
inline Bandwidth knee_model(unsigned knee, double per_stage, double drop) {
  return [=](unsigned m) {
    if (m <= knee) return m * per_stage;
    return knee * per_stage * std::max(0.1, 1 - drop * (m - knee));
  };
}

// The stages of one simulated proof, shaped like the engine's graph: load -> {synthesize, msm_g2};
// synthesize -> compute_h -> msm_g1 (H); assemble after both; release last.
inline std::vector<StageSpec> proof_shape(double synth_bytes, double g2_bytes, double compute_s) {
  return {
      {Stage::load, ResourceClass::io, 0.001, {}},
      {Stage::synthesize, ResourceClass::membw, synth_bytes, {0}},
      {Stage::msm_g2, ResourceClass::membw, g2_bytes, {0}, 1},
      {Stage::compute_h, ResourceClass::compute, compute_s, {1}},
      {Stage::msm_g1, ResourceClass::compute, compute_s, {3}},
      {Stage::assemble, ResourceClass::cpu, 0.001, {2, 4}},
      {Stage::release, ResourceClass::membw, synth_bytes / 20, {5}},
  };
}

struct Observed {
  unsigned max_running_membw = 0;  // the most membw stages streaming at one moment
  unsigned pauses = 0;
  unsigned proofs_done = 0;
  double membw_bytes_done = 0;
  std::vector<std::pair<double, double>> admitted;  // (time, declared bytes) per membw admission
  std::vector<std::pair<double, double>> finished;  // (time, bytes) per membw stage end
  double bytes_between(double from, double to) const {
    double sum = 0;
    for (auto [t, b] : finished) sum += (t >= from && t < to) ? b : 0;
    return sum;
  }
};

class Simulation {
 public:
  Simulation(pacer::Scheduler& sched, SimTime& time, Bandwidth bandwidth, std::vector<StageSpec> shape)
      : sched_(sched), time_(time), bandwidth_(std::move(bandwidth)), shape_(std::move(shape)) {}

  // Runs `proofs` proofs with `in_flight` at once; throws on a stall (nothing can progress).
  Observed run(unsigned proofs, unsigned in_flight) {
    for (unsigned i = 0; i < std::min(proofs, in_flight); ++i) start_proof();
    while (obs_.proofs_done < proofs) {
      step();
      if (obs_.proofs_done + live_proofs() < proofs && live_proofs() < in_flight) start_proof();
    }
    return obs_;
  }

 private:
  enum class State { blocked, asked, running, paused, done };
  struct Live {
    pacer::StageTicket ticket;
    const StageSpec* spec;
    State state = State::blocked;
    double remaining = 0, next_boundary = 0, started = 0, paused_at = 0, paused = 0;
  };
  struct Proof {
    std::vector<Live> stages;
  };

  unsigned live_proofs() const { return unsigned(proofs_.size()); }

  void start_proof() {
    const pacer::JobId job = next_job_++;
    Proof& p = proofs_[job];
    for (const StageSpec& s : shape_) {
      Live l;
      l.ticket = {job, s.stage, s.cls, s.cls == ResourceClass::membw ? uint64_t(s.work) : 0, s.priority, 0};
      l.spec = &s;
      l.remaining = s.work;
      l.next_boundary = s.work - s.work / s.chunks;
      p.stages.push_back(l);
    }
    ask_ready(job);
  }

  void ask_ready(pacer::JobId job) {
    auto& stages = proofs_[job].stages;
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].state != State::blocked) continue;
      bool ready = true;
      for (int d : stages[i].spec->deps) ready &= stages[d].state == State::done;
      if (!ready) continue;
      stages[i].state = State::asked;
      sched_.admit(stages[i].ticket, [this, job, i] { on_start(job, i); });
    }
  }

  Live& at(pacer::JobId job, size_t i) { return proofs_.at(job).stages.at(i); }

  void on_start(pacer::JobId job, size_t i) {
    Live& l = at(job, i);
    if (l.state != State::asked) throw std::logic_error("start() called twice or for a stage not asked");
    l.state = State::running;
    l.started = time_.seconds;
    if (l.ticket.cls == ResourceClass::membw) obs_.admitted.push_back({time_.seconds, double(l.ticket.bytes)});
    note_running();
  }
  void on_resume(pacer::JobId job, size_t i) {
    Live& l = at(job, i);
    if (l.state != State::paused) throw std::logic_error("resume() for a stage that is not paused");
    l.state = State::running;
    l.paused += time_.seconds - l.paused_at;
    note_running();
  }
  void note_running() {
    unsigned m = 0;
    for (auto& [job, p] : proofs_)
      for (auto& l : p.stages) m += l.state == State::running && l.ticket.cls == ResourceClass::membw;
    obs_.max_running_membw = std::max(obs_.max_running_membw, m);
  }

  // Advances the clock to the next event (a timer, a chunk boundary, a stage end) and handles it.
  void step() {
    unsigned m = 0;
    for (auto& [job, p] : proofs_)
      for (auto& l : p.stages) m += l.state == State::running && l.ticket.cls == ResourceClass::membw;
    const double membw_rate = m ? bandwidth_(m) / m : 0;
    auto rate = [&](const Live& l) { return l.ticket.cls == ResourceClass::membw ? membw_rate : 1.0; };
    double dt = INFINITY;
    for (auto& [job, p] : proofs_)
      for (auto& l : p.stages)
        if (l.state == State::running) dt = std::min(dt, (l.remaining - std::max(0.0, l.next_boundary)) / rate(l));
    if (!time_.timers.empty()) dt = std::min(dt, SimTime::secs(time_.timers.begin()->first.first) - time_.seconds);
    if (!std::isfinite(dt)) throw std::runtime_error("simulation stalled: no stage runs and no timer is armed");
    dt = std::max(dt, 0.0);
    time_.seconds += dt;
    std::vector<std::pair<pacer::JobId, size_t>> hits;
    for (auto& [job, p] : proofs_)
      for (size_t i = 0; i < p.stages.size(); ++i) {
        Live& l = p.stages[i];
        if (l.state != State::running) continue;
        l.remaining -= rate(l) * dt;
        if (l.remaining <= std::max(0.0, l.next_boundary) + 1e-9 * std::max(1.0, l.spec->work)) hits.push_back({job, i});
      }
    while (!time_.timers.empty() && SimTime::secs(time_.timers.begin()->first.first) <= time_.seconds + 1e-12) {
      auto fn = std::move(time_.timers.begin()->second);
      time_.timers.erase(time_.timers.begin());
      fn();
    }
    for (auto [job, i] : hits) boundary(job, i);
  }

  void boundary(pacer::JobId job, size_t i) {
    Live& l = at(job, i);
    if (l.next_boundary > 0) {  // a checkpoint between chunks
      l.remaining = l.next_boundary;
      l.next_boundary -= l.spec->work / l.spec->chunks;
      if (l.next_boundary < 1e-9 * l.spec->work) l.next_boundary = 0;
      // Paused while the scheduler decides: a slot it hands on inside this call must not count
      // this stage as still streaming.
      l.state = State::paused;
      l.paused_at = time_.seconds;
      if (sched_.checkpoint(l.ticket, [this, job, i] { on_resume(job, i); })) {
        l.state = State::running;
      } else {
        if (l.state != State::paused) throw std::logic_error("resume() called inside checkpoint()");
        ++obs_.pauses;
      }
      return;
    }
    l.state = State::done;
    pacer::StageStats stats;
    stats.started_at = SimTime::at(l.started);
    stats.ended_at = time_.now();
    stats.paused = std::chrono::nanoseconds(int64_t(std::llround(l.paused * 1e9)));
    stats.run = stats.ended_at - stats.started_at - stats.paused;
    stats.bytes = l.ticket.bytes;
    if (l.ticket.cls == ResourceClass::membw) {
      obs_.membw_bytes_done += l.spec->work;
      obs_.finished.push_back({time_.seconds, l.spec->work});
    }
    const pacer::StageTicket ticket = l.ticket;
    sched_.finished(ticket, stats);
    auto& stages = proofs_[job].stages;
    if (std::all_of(stages.begin(), stages.end(), [](const Live& s) { return s.state == State::done; })) {
      ++obs_.proofs_done;
      proofs_.erase(job);
      return;
    }
    ask_ready(job);
  }

  pacer::Scheduler& sched_;
  SimTime& time_;
  Bandwidth bandwidth_;
  std::vector<StageSpec> shape_;
  std::map<pacer::JobId, Proof> proofs_;
  pacer::JobId next_job_ = 1;
  Observed obs_;
};

}  // namespace sim
