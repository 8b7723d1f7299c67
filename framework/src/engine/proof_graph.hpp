#pragma once
// The graph of one proof's stages: its nodes, what each waits for, and which take the proof's
// backend lane. Several nodes map to one Stage (the G1 MSMs: one node per basis).
#include <array>
#include <cstdint>
#include <exception>

#include "pacer/backend.hpp"
#include "pacer/stages.hpp"
#include "pacer/types.hpp"

namespace pacer {

enum Node : uint8_t {
  kWitness, kLoad, kSynthesize, kMsmG2, kMsmA, kMsmB1, kMsmC, kComputeH, kMsmH, kAssemble, kRelease, kNodes
};
constexpr uint16_t bit(Node n) { return uint16_t(1u << n); }

struct NodeSpec {
  Stage stage;
  Basis basis;      // msm_g1 nodes
  uint16_t deps;    // nodes that must be done first
  bool needs_lane;  // a backend call (takes the proof's lane)
};

inline constexpr std::array<NodeSpec, kNodes> kGraph = {{
    {Stage::witness, Basis::A, 0, false},  // done at once unless ProveOptions::witness_stage
    {Stage::load, Basis::A, bit(kWitness), false},
    {Stage::synthesize, Basis::A, bit(kLoad), true},
    {Stage::msm_g2, Basis::A, bit(kLoad), true},
    {Stage::msm_g1, Basis::A, bit(kLoad), true},
    {Stage::msm_g1, Basis::B1, bit(kLoad), true},
    {Stage::msm_g1, Basis::C, bit(kLoad), true},
    {Stage::compute_h, Basis::A, bit(kSynthesize), true},
    {Stage::msm_g1, Basis::H, bit(kComputeH), true},
    {Stage::assemble, Basis::A, bit(kMsmG2) | bit(kMsmA) | bit(kMsmB1) | bit(kMsmC) | bit(kMsmH), false},
    {Stage::release, Basis::A, bit(kAssemble), false},
}};

inline constexpr uint16_t kLaneNodes =
    bit(kSynthesize) | bit(kMsmG2) | bit(kMsmA) | bit(kMsmB1) | bit(kMsmC) | bit(kComputeH) | bit(kMsmH);

// What a node's stage threw, as the proof's error: "proof 7: stage msm_g1 (C): ..." with the exit
// code of what was thrown (bad input stays bad input); out of memory passes as it is.
std::exception_ptr name_failure(std::exception_ptr error, JobId job, const NodeSpec& node);

}  // namespace pacer
