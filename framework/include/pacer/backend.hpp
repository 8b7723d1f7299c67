#pragma once
// Compute backends (CPU, CUDA): key residency, synthesis, H computation and the MSMs of a proof.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pacer/formats/zkey.hpp"
#include "pacer/stages.hpp"

namespace pacer {

// An affine point in the zkey's file encoding: coordinates in Montgomery form, little-endian,
// x then y (G2: x.c0 x.c1 y.c0 y.c1); all bytes zero is the point at infinity.
struct PointBytes {
  std::array<std::byte, 192> data{};
  size_t size = 0;  // 2*n8q for G1, 4*n8q for G2
};

// The G1 bases of a proving key that a backend multiplies.
enum class Basis : uint8_t { A, B1, C, H };

// One concurrent proof slot of a backend: 0 <= lane < BackendInfo::lanes.
using Lane = unsigned;
using Checkpoint = std::function<void()>;  // call between chunks: the scheduler may pause here

struct BackendInfo {
  std::string name;
  std::vector<std::string> devices;  // human-readable, e.g. "cpu: 16 threads"
  // Proofs whose backend work may be in flight at once. The engine hands each proof one lane for
  // all of its backend calls and takes it back after the last one, so a backend can keep per-lane
  // state (a CUDA stream and its scratch) and never sees two proofs on one lane at the same time.
  // Calls of one proof on its lane may still overlap (msm_g2 beside compute_h and msm_g1).
  unsigned lanes = 1;
  std::vector<CurveId> curves;
  uint64_t device_bytes = 0;  // device memory held now (resident keys, lane scratch); 0 for the CPU
  // The device each lane runs on (0, 1, ...; as many entries as lanes; empty: all on device 0).
  // The engine hands a proof a lane of the least busy device, and when a call throws
  // DeviceFailedError(device) it stops using every lane of that device.
  std::vector<unsigned> lane_devices;
  // The calls of one proof on its lane may run at the same time (the cpu backend: a lane is only a
  // name, every call runs on the host pool). The engine then runs the proof's critical path
  // (compute_h, then the H MSM) beside its other MSMs instead of queueing it behind them on the
  // lane's strand. false: a lane runs one call at a time (a GPU stream).
  bool lane_calls_overlap = false;
};

// What a backend holds for a resident key and for each proof on it, from its own layouts, so that
// the engine admits proofs against its memory budget by the backend's figures, not a guess of its
// own. A backend that reports nothing is taken to need nothing beyond what the engine allocates
// (the witness, and a, b, c where they live on the host).
struct MemoryNeeds {
  uint64_t host_per_key = 0;      // the resident key on the host (decoded points, constraint rows)
  uint64_t host_per_proof = 0;    // the most one proof's backend calls allocate on the host (MSM scratch)
  uint64_t device_per_key = 0;    // the resident key on its device(s)
  uint64_t device_per_proof = 0;  // one proof's lane on its device (scratch, witness, vectors)
};

// A proving key made resident on a backend (points converted/uploaded once, reused by every
// proof). Holds the parsed key alive.
class ResidentKey {
 public:
  virtual ~ResidentKey() = default;
  virtual const ProvingKey& key() const = 0;
};

// Where a proof's vectors a, b, c and h live between its backend calls on one lane.
//  host:   in buffers the engine allocates and passes as spans (the cpu backend; the cuda backend
//          when a key's matrices do not fit on its device).
//  device: on the lane's device. synthesize leaves a, b, c there, compute_h turns them into h in
//          place, and msm_g1(H) sums over that h: the engine allocates no host a, b, c and passes
//          empty spans to those three calls. Such a backend also keeps the proof's witness on the
//          device from its first call that needs it until end_proof.
enum class VectorHome : uint8_t { host, device };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendInfo info() const = 0;
  // What a stage's work on `key` consumes on this backend, for the scheduler: work on a device is
  // ResourceClass::device (not paced against host memory bandwidth); work on the host pool keeps
  // its default class (the cuda backend's msm_g2 with g2 = "cpu" is membw, and so is synthesis for
  // a key whose matrices did not fit on the GPU).
  virtual ResourceClass resource(Stage stage, const ResidentKey& key) const {
    (void)key;
    return default_resource(stage);
  }
  virtual std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) = 0;
  virtual MemoryNeeds memory_needs(const ResidentKey& key) const {
    (void)key;
    return {};
  }
  virtual VectorHome vectors(const ResidentKey& key) const {
    (void)key;
    return VectorHome::host;
  }
  // a = A·w, b = B·w, c = a∘b over the key's constraint matrices (Montgomery form, domain_size
  // each; rows past the constraints are zero). `witness`: standard form, n_vars values. With
  // vectors(key) == device, a, b and c are empty and the results stay on the lane's device.
  virtual void synthesize(ResidentKey& key, Lane lane, std::span<const Fr256> witness, std::span<Fr256> a,
                          std::span<Fr256> b, std::span<Fr256> c, const Checkpoint& checkpoint) = 0;
  // a, b, c: evaluations at the domain (Montgomery form, domain_size each). On return a holds
  // h = A_odd*B_odd - C_odd in STANDARD form (MSM scalars); b and c are scratch. Empty spans
  // with vectors(key) == device (see VectorHome).
  virtual void compute_h(ResidentKey& key, Lane lane, std::span<Fr256> a, std::span<Fr256> b,
                         std::span<Fr256> c, const Checkpoint& checkpoint) = 0;
  // Sum of scalars[i] * basis[i]; scalars in standard form, as many as the basis has points.
  // Basis::H with empty scalars: the h that compute_h left on the lane's device.
  virtual PointBytes msm_g1(ResidentKey& key, Lane lane, Basis basis, std::span<const Fr256> scalars,
                            const Checkpoint& checkpoint) = 0;
  virtual PointBytes msm_g2(ResidentKey& key, Lane lane, std::span<const Fr256> scalars,
                            const Checkpoint& checkpoint) = 0;
  // No proof is left to synthesise on `key` and the host will submit none (Prover::last_submission):
  // what only synthesize reads may go. A later synthesize call must still work (rebuilding it).
  virtual void release_synthesis(ResidentKey& key) { (void)key; }
  // The proof holding `lane` made its last call on it (or failed): whatever the backend kept on
  // the lane for that proof (its witness and vectors on a device) may go. Called before the lane
  // is handed to another proof, and before the proof's host buffers are freed.
  virtual void end_proof(Lane lane) noexcept { (void)lane; }
};

}  // namespace pacer
