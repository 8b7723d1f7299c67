#pragma once
// Per-curve operations behind the host API. Each curve (and group) is compiled in its own .cu
// file from one template; gpu_api.cu picks the instance at run time. CUDA types allowed here.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu_api.hpp"
#include "util/cuda_util.cuh"

namespace pacer::cuda::detail {

// A lane's scalar-field operations: compute_h's steps and synthesis.
class NttOps {
 public:
  virtual ~NttOps() = default;
  // a = A·w, b = B·w over device constraint rows (synth/rows.hpp; 2n + 1 row starts), w standard.
  virtual void synthesize(void* a, void* b, const uint32_t* start, const uint32_t* wire, const void* coef,
                          const void* w, uint32_t n, cudaStream_t s) = 0;
  // Tables for domains up to 2^L (shared by every lane of the device; built once, blocking).
  virtual void prepare(uint32_t L, cudaStream_t s) = 0;
  // Evaluations at the n-th roots -> evaluations at g·ω^i (inverse DIF, g^j/n on the
  // bit-reversed coefficients, forward DIT), in place.
  virtual void coset_eval(void* x, uint32_t L, cudaStream_t s) = 0;
  virtual void h(void* a, const void* b, const void* c, size_t n, cudaStream_t s) = 0;  // a = std(a·b - c)
  virtual void hadamard(void* c, const void* a, const void* b, size_t n, cudaStream_t s) = 0;
  // Natural order in and out (forward, or inverse with the 1/n); tmp holds n elements.
  virtual void ntt_natural(void* x, void* tmp, uint32_t L, bool inverse, cudaStream_t s) = 0;
  // The transform alone: natural -> bit-reversed (DIF), no permutation (benchmarks).
  virtual void dif(void* x, uint32_t L, bool inverse, cudaStream_t s) = 0;
};

std::unique_ptr<NttOps> make_ntt_ops_bn254(int device, const KernelConfig& kernels);
std::unique_ptr<NttOps> make_ntt_ops_bls12_381(int device, const KernelConfig& kernels);

// Scratch of one lane's MSMs; grown on demand, kept between calls.
struct MsmScratch {
  // buckets_alt: the bucket sums of a scalar piece after the first (pippenger.cuh).
  DeviceBuffer scalars, keys, vals, keys_alt, vals_alt, buckets, buckets_alt, part_a, part_b, part_keys_a,
      part_keys_b, counts, offsets, reduce_a, reduce_b, cub_temp;
  PinnedBuffer host_total{sizeof(uint32_t) * 4};
  size_t total_bytes() const {
    return scalars.bytes() + keys.bytes() + vals.bytes() + keys_alt.bytes() + vals_alt.bytes() + buckets.bytes() +
           buckets_alt.bytes() + part_a.bytes() + part_b.bytes() + part_keys_a.bytes() + part_keys_b.bytes() +
           counts.bytes() + offsets.bytes() + reduce_a.bytes() + reduce_b.bytes() + cub_temp.bytes();
  }
};

struct MsmStats {
  uint32_t c = 0, windows = 0, levels = 0, partial_levels = 0, copies = 1, pieces = 1;
  // Milliseconds (CUDA events): digits, sort, bucket sums (all levels; summed over the scalar
  // pieces), weighting, host finish; the scalars' copy (first byte to last) and how long the
  // kernels waited for it (the part of the copy not hidden behind the sums).
  float digits_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0, finish_ms = 0;
  float upload_ms = 0, upload_wait_ms = 0;
};

class MsmOps {
 public:
  virtual ~MsmOps() = default;
  // Grows `scratch` for MSMs of up to n points.
  virtual void reserve(MsmScratch& scratch, size_t n) = 0;
  // Σ k_i·P_i for device points (affine) and scalars (4×64-bit standard form) either on the host
  // (host_scalars: copied into scratch.scalars on `up` in pieces that overlap the sums on `s`;
  // pinned memory overlaps best) or already on the device (device_scalars, read in place; ordered
  // after whatever `s` waits for); exactly one is set. Writes the Jacobian result (X, Y, Z,
  // Montgomery) to out (host). With window copies, copy j of point i is at points[j·stride + i]
  // and the MSM uses the copies' c.
  virtual void run(const void* points, size_t n, size_t stride, const WindowCopies& copies, const void* host_scalars,
                   const void* device_scalars, MsmScratch& scratch, cudaStream_t s, cudaStream_t up, void* out,
                   MsmStats* stats) = 0;
  // Fills copies 1.. of a basis of n points whose copy 0 is in place (G1 only; asynchronous on s).
  virtual void precompute(void* points, size_t n, const WindowCopies& copies, cudaStream_t s) = 0;
};

std::unique_ptr<MsmOps> make_msm_ops_bn254_g1(int device, const KernelConfig& kernels);
std::unique_ptr<MsmOps> make_msm_ops_bn254_g2(int device, const KernelConfig& kernels);
std::unique_ptr<MsmOps> make_msm_ops_bls12_381_g1(int device, const KernelConfig& kernels);
std::unique_ptr<MsmOps> make_msm_ops_bls12_381_g2(int device, const KernelConfig& kernels);

// Field tests and benchmarks (testing namespace of gpu_api.hpp), one instance per field.
class FieldOps {
 public:
  virtual ~FieldOps() = default;
  // out[4i..4i+3] = a·b, a+b, a-b, a² (device buffers, count elements of this field).
  virtual void ops(void* out, const void* a, const void* b, size_t count, cudaStream_t s) = 0;
  // Products per second of a throughput kernel (median of reps).
  virtual double mul_rate(int reps, cudaStream_t s) = 0;
  virtual size_t element_bytes() const = 0;
};

std::unique_ptr<FieldOps> make_field_ops(Curve curve, int field_kind, int device);

// The instance of a curve (and group): gpu_api.cu.
std::unique_ptr<NttOps> make_ntt(Curve c, int device, const KernelConfig& k);
std::unique_ptr<MsmOps> make_msm(Curve c, bool g2, int device, const KernelConfig& k);
// log2 of n; std::invalid_argument naming `what` unless n is a power of two.
uint32_t log2_exact(size_t n, const char* what);

}  // namespace pacer::cuda::detail

namespace pacer::cuda {

struct ResidentPoints::Impl {
  int device = 0;
  Curve curve = Curve::bn254;
  bool g2 = false;
  size_t count = 0;
  WindowCopies copies;
  DeviceBuffer buf;
};

struct ResidentRows::Impl {
  int device = 0;
  Curve curve = Curve::bn254;
  size_t domain = 0, terms = 0;
  DeviceBuffer start, wire, coef;  // 2·domain + 1 u32, terms u32, terms × 32 bytes
};

}  // namespace pacer::cuda
