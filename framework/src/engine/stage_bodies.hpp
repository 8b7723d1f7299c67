#pragma once
// What each node of a proof's graph does (the stage bodies), and the host memory it declares.
#include <cstdint>

#include "job.hpp"
#include "pacer/prover.hpp"
#include "pacer/scheduler.hpp"

namespace pacer {

// Runs node's work for the proof: reads the witness (witness, load), allocates a, b and c where
// they live on the host (load), calls the backend on the proof's lane, assembles the proof, gives
// the buffers back (release). Throws what the work throws.
void run_stage_body(const EngineParts& parts, Job& job, Node node, const Checkpoint& checkpoint, StageRecord& record);

// The host bytes node's stage works over, declared to the scheduler (cls: the stage's resource
// class on this backend; device work holds no host memory for synthesis).
uint64_t declared_bytes(const EngineParts& parts, const Job& job, Node node, ResourceClass cls);

}  // namespace pacer
