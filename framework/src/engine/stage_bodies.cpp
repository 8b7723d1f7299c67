// The work of each node of a proof (stage_bodies.hpp): the witness, the host buffers, the backend
// calls, assembly and release.
#include "stage_bodies.hpp"

#include "../proof_stages.hpp"
#include "pacer/error.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {

namespace {
bool vectors_on_device(const EngineParts& parts, const Job& job) {
  return parts.backend->vectors(*job.key) == VectorHome::device;
}
}  // namespace

void run_stage_body(const EngineParts& parts, Job& job, Node node, const Checkpoint& checkpoint, StageRecord& record) {
  const ProvingKey& key = job.key->key();
  ResidentKey& rk = *job.key;
  Backend& backend = *parts.backend;
  const size_t n = key.domain_size;
  auto span_of = [](const std::unique_ptr<FrBuffer>& buffer) {
    return buffer ? buffer->span() : std::span<Fr256>{};  // empty: the vector is on the device
  };
  switch (node) {
    case kWitness:
      job.witness = job.source();
      if (!job.witness) throw FailedError("the witness generator returned no witness");
      check_witness_matches(key, *job.witness);
      return;
    case kLoad: {
      if (!job.options.witness_stage) {
        job.witness = job.source();
        if (!job.witness) throw FailedError("no witness");
        check_witness_matches(key, *job.witness);
      }
      if (vectors_on_device(parts, job)) return;
      Allocator& abc = parts.staging ? *parts.staging : *parts.allocator;  // the backend copies them
      job.a = std::make_unique<FrBuffer>(abc, n, Usage::abc);
      job.b = std::make_unique<FrBuffer>(abc, n, Usage::abc);
      job.c = std::make_unique<FrBuffer>(abc, n, Usage::abc);
      return;
    }
    case kSynthesize:
      return backend.synthesize(rk, job.lane, job.witness->values, span_of(job.a), span_of(job.b), span_of(job.c),
                                checkpoint);
    case kComputeH: {
      const ThreadPool::Urgent urgent;  // the H MSM waits for it: ahead of the other MSMs' loops
      return backend.compute_h(rk, job.lane, span_of(job.a), span_of(job.b), span_of(job.c), checkpoint);
    }
    case kMsmG2: job.points.b2 = backend.msm_g2(rk, job.lane, job.witness->values, checkpoint); return;
    case kMsmA: job.points.a = backend.msm_g1(rk, job.lane, Basis::A, job.witness->values, checkpoint); return;
    case kMsmB1: job.points.b1 = backend.msm_g1(rk, job.lane, Basis::B1, job.witness->values, checkpoint); return;
    case kMsmC: {
      const std::span<const Fr256> private_wires = std::span<const Fr256>(job.witness->values).subspan(key.n_public + 1);
      job.points.c = backend.msm_g1(rk, job.lane, Basis::C, private_wires, checkpoint);
      return;
    }
    case kMsmH:
      job.points.h = backend.msm_g1(rk, job.lane, Basis::H, std::span<const Fr256>(span_of(job.a)), checkpoint);
      return;
    case kAssemble: {
      ProofJson json = assemble(key, job.points, *job.witness, job.options.zero_blinding, parts.pool);
      std::lock_guard lock(job.mu);
      job.out.proof_json = std::move(json.proof);
      job.out.public_json = std::move(json.public_signals);
      return;
    }
    case kRelease:
      for (auto* buffer : {&job.a, &job.b, &job.c}) {
        if (*buffer) record.bytes_released += (*buffer)->bytes();
        buffer->reset();
      }
      return;
    case kNodes: break;
  }
}

uint64_t declared_bytes(const EngineParts& parts, const Job& job, Node node, ResourceClass cls) {
  const ProvingKey& key = job.key->key();
  const uint64_t n = key.domain_size, g1 = 2 * key.n8q, g2 = 4 * key.n8q;
  const uint64_t abc = vectors_on_device(parts, job) ? 0 : 3 * n * sizeof(Fr256);
  switch (node) {
    // A generator writes every wire and reads a few per constraint: a few witnesses' worth.
    case kWitness: return 4 * uint64_t(key.n_vars) * sizeof(Fr256);
    case kLoad: return abc + uint64_t(key.n_vars) * sizeof(Fr256);
    case kSynthesize:  // the constraint rows (wire + coefficient) and a, b, c; nothing on the host on a device
      return cls == ResourceClass::device ? 0 : uint64_t(key.n_coeffs) * (4 + key.n8r) + abc;
    case kComputeH: return abc;
    case kMsmG2: return uint64_t(key.n_vars) * g2;
    case kMsmA:
    case kMsmB1: return uint64_t(key.n_vars) * g1;
    case kMsmC: return uint64_t(key.n_vars - key.n_public - 1) * g1;
    case kMsmH: return n * g1;
    case kAssemble: return 0;
    case kRelease: return abc;
    case kNodes: break;
  }
  return 0;
}

}  // namespace pacer
