#pragma once
// The stages of one proof and what a scheduler is told about each (docs/architecture.md).
#include <chrono>
#include <cstdint>
#include <string_view>

namespace pacer {

using JobId = uint64_t;

// witness: a witness generator run on input.json (fullprove only; a proof with a .wtns skips it).
enum class Stage : uint8_t { witness, load, synthesize, compute_h, msm_g1, msm_g2, assemble, release };
inline constexpr int kStageCount = 8;

// What a stage mostly consumes; schedulers pace the membw class. `device`: work on an accelerator
// (its lane's stream), which competes with no host stage.
enum class ResourceClass : uint8_t { io, membw, compute, cpu, device };

constexpr std::string_view stage_name(Stage s) {
  constexpr std::string_view names[] = {"witness", "load",   "synthesize", "compute_h",
                                        "msm_g1",  "msm_g2", "assemble",   "release"};
  return names[static_cast<int>(s)];
}
constexpr std::string_view resource_name(ResourceClass c) {
  constexpr std::string_view names[] = {"io", "membw", "compute", "cpu", "device"};
  return names[static_cast<int>(c)];
}
constexpr ResourceClass default_resource(Stage s) {
  switch (s) {
    case Stage::witness: return ResourceClass::membw;  // the heavy CPU stage of a circom proof
    case Stage::load: return ResourceClass::io;
    case Stage::synthesize: return ResourceClass::membw;
    case Stage::compute_h: return ResourceClass::compute;
    case Stage::msm_g1: return ResourceClass::compute;
    case Stage::msm_g2: return ResourceClass::membw;
    case Stage::assemble: return ResourceClass::cpu;
    case Stage::release: return ResourceClass::membw;
  }
  return ResourceClass::cpu;
}

// Handed to the scheduler before a stage starts, and with every checkpoint of that stage.
struct StageTicket {
  JobId job = 0;
  Stage stage = Stage::load;
  ResourceClass cls = ResourceClass::cpu;
  uint64_t bytes = 0;  // bytes the stage is expected to stream through DRAM (declared, not measured)
  int priority = 0;    // higher runs first when a scheduler has a choice (the engine: msm_g2 = 1)
  uint8_t part = 0;    // which task of a stage that has several (msm_g1: the Basis), else 0
};

// Measured by the engine and fed back to the scheduler when a stage ends. Every admitted ticket
// gets exactly one finished() call, also when its proof failed (then `failed` is set and the
// stage may not have run at all).
struct StageStats {
  std::chrono::steady_clock::time_point started_at{}, ended_at{};  // let in, done
  std::chrono::nanoseconds queued{0};   // admission wait
  std::chrono::nanoseconds paused{0};   // total time paused in checkpoints
  std::chrono::nanoseconds run{0};      // wall time running, pauses excluded
  uint64_t bytes = 0;                   // as declared in the ticket
  uint64_t minor_faults = 0;            // page faults of the stage's own thread (getrusage), a lower bound
  bool failed = false;                  // the stage threw, or its proof had failed before it ran
};

}  // namespace pacer
