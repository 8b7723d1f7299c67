#pragma once
// Host API of Pacer's CUDA kernels (BN254 and BLS12-381: MSM for G1 and G2, compute_h).
// Plain C++: no CUDA headers, so the g++-compiled backend plugin includes it.
//
// Data layout (as the framework's CPU types, docs/formats.md):
//  - Fq/Fr elements: Montgomery form, little-endian 64-bit limbs (Fq: 4 limbs BN254, 6 BLS12-381;
//    Fr: 4 limbs). Fq2 = c0 + c1·u, c0 first.
//  - Affine point: x then y, no flag; (0, 0) is infinity. G1 64/96 bytes, G2 128/192 bytes.
//  - MSM scalars: 4 limbs per scalar, STANDARD form, each < r.
//  - MSM result: Jacobian X, Y, Z (Montgomery, same limb layout), x = X/Z^2, y = Y/Z^3;
//    Z = 0 is infinity (then X = Y = one, the framework's Jacobian identity).
// Every CUDA error or kernel failure surfaces as std::runtime_error (out of memory names the
// allocation; an error that leaves the device unusable as DeviceLost); invalid arguments as
// std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacer::cuda {

// A CUDA error after which the device's context is unusable: an illegal address, a launch failure,
// an uncorrectable ECC error, a lost device. Such errors are sticky (every later call on the
// device fails as well), so the backend stops using the device instead of failing proof after
// proof on it.
class DeviceLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~DeviceLost() override;
};

enum class Curve { bn254, bls12_381 };

struct DeviceInfo {
  int index = 0;
  std::string name;
  size_t total_bytes = 0, free_bytes = 0;
  int sms = 0, cc_major = 0, cc_minor = 0;
};

// The CUDA devices of this process; empty (never throws) where there is no driver or GPU, and
// then last_error() says why.
std::vector<DeviceInfo> list_devices();
std::string last_error();

// Kernel tuning of one lane ([backend.params] of the cuda backend). 0 everywhere = automatic, the
// measured defaults; the others exist to measure alternatives (plugins/cuda/selftest/device_tune.sh)
// without a rebuild, per lane, never as a process-wide switch.
struct KernelConfig {
  unsigned msm_window_bits = 0;  // Pippenger window c: 4..22
  unsigned msm_chunk = 0;        // sorted digit entries per thread in the first bucket pass: 2..4096
  unsigned msm_pieces = 0;       // scalar pieces whose copies overlap the bucket sums: 1..8
  unsigned ntt_pass_bits = 0;    // NTT stages per shared-memory pass: 1..12
  unsigned ntt_log_cols = 0;     // 1 + log2 of the tiles per block: 1..5
};
// Throws std::invalid_argument naming the field of a value outside its range.
void check_kernel_config(const KernelConfig& config);

// Window copies of a G1 basis (fixed-base Pippenger): copy j holds 2^(c·j)·P_i, so that an MSM
// over the basis puts every window into one bucket set: one bucket weighting instead of one per
// window, and a larger c (fewer windows, fewer additions). Costs `copies` times the basis's
// device memory and a one-time computation at upload. copies = 1: none.
struct WindowCopies {
  unsigned copies = 1;
  unsigned window_bits = 0;  // c (16..22) when copies > 1
};
// Every window copied at the window size the cost model picks for `count` points; {1, 0} for G2
// and for bases below 2^16 points (there the weighting is cheap and the memory not worth it).
WindowCopies plan_window_copies(Curve curve, bool g2, size_t count);

size_t affine_bytes(Curve curve, bool g2);    // one input point
size_t jacobian_bytes(Curve curve, bool g2);  // the MSM result

// One basis (G1 or G2 points of a key) resident on one device. Immutable once uploaded: any
// number of lanes on that device may use it at the same time.
class ResidentPoints {
 public:
  struct Impl;
  explicit ResidentPoints(std::unique_ptr<Impl> impl);
  ~ResidentPoints();
  ResidentPoints(const ResidentPoints&) = delete;
  ResidentPoints& operator=(const ResidentPoints&) = delete;
  int device() const;
  Curve curve() const;
  bool g2() const;
  size_t count() const;
  size_t bytes() const;  // copies included
  const WindowCopies& copies() const;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Copies `count` affine points (layout above) to `device` and computes their window copies there;
// returns when they are there.
std::unique_ptr<ResidentPoints> upload_points(int device, Curve curve, bool g2, const void* affine_points,
                                              size_t count, const WindowCopies& copies = {});

// Two page-locked buffers a key's uploads go through: the host fills one while the other is copied,
// so reading the key file (and checking its points) overlaps the copy instead of preceding it, and
// the copy runs at DMA speed instead of through the driver's pageable path. One upload at a time.
class UploadStaging {
 public:
  struct Impl;
  explicit UploadStaging(size_t buffer_bytes = size_t(64) << 20);
  ~UploadStaging();
  UploadStaging(const UploadStaging&) = delete;
  UploadStaging& operator=(const UploadStaging&) = delete;
  Impl& impl() { return *impl_; }
  // Host milliseconds so far: filling the buffers, and waiting for a buffer's DMA to end.
  double fill_ms() const;
  double dma_wait_ms() const;

 private:
  std::unique_ptr<Impl> impl_;
};
// Writes `bytes` bytes of what is uploaded, from byte `offset` of it on, into `dst` (page-locked
// host memory); it may use many host threads. What it throws ends the upload.
using FillChunk = std::function<void(size_t offset, size_t bytes, void* dst)>;
// The same as above, the points written by `fill` in chunks (whole points) through `staging`. It
// returns once they are on the device, before their window copies are: synchronize(device) before
// a lane uses them.
std::unique_ptr<ResidentPoints> upload_points(int device, Curve curve, bool g2, size_t count, UploadStaging& staging,
                                              const FillChunk& fill, const WindowCopies& copies = {});
// Waits for everything queued on the device (the window copies of the uploads above).
void synchronize(int device);

// A key's constraint rows resident on one device, for synthesis there: the framework's
// ConstraintRows (2·domain + 1 row starts, then per term its wire and its coefficient as the zkey
// stores it, v·R², 4 limbs). Immutable once uploaded; any lane of the device may read them.
class ResidentRows {
 public:
  struct Impl;
  explicit ResidentRows(std::unique_ptr<Impl> impl);
  ~ResidentRows();
  ResidentRows(const ResidentRows&) = delete;
  ResidentRows& operator=(const ResidentRows&) = delete;
  int device() const;
  Curve curve() const;
  size_t domain() const;
  size_t terms() const;
  size_t bytes() const;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};
// What rows of this shape take on a device.
size_t rows_bytes(size_t domain, size_t terms);
// `copy(dst, src, bytes)` fills the staging buffers (e.g. on the host pool); none: the rows are
// copied by the driver from pageable memory.
using HostCopy = std::function<void(void* dst, const void* src, size_t bytes)>;
std::unique_ptr<ResidentRows> upload_rows(int device, Curve curve, size_t domain, const uint32_t* start,
                                          const uint32_t* wire, const uint64_t* coef, size_t terms,
                                          UploadStaging* staging = nullptr, const HostCopy& copy = {});

// Where the time of the last call went (CUDA events; milliseconds).
struct MsmTiming {
  float upload_ms = 0;       // scalars host -> device, in pieces that overlap the sums
  float upload_wait_ms = 0;  // of it, what the kernels waited for (not hidden)
  float compute_ms = 0;      // total_ms - upload_wait_ms
  float total_ms = 0;        // scalars on the host to the result on the host
  unsigned window_bits = 0, windows = 0, copies = 1, pieces = 1;
  // Breakdown of compute_ms: digits, sort, bucket sums, bucket weighting, host finish.
  float digits_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0, finish_ms = 0;
};
struct HTiming {
  float upload_ms = 0;    // a, b (and c) host -> device
  float total_ms = 0;     // first byte up to last byte down (uploads overlap the transforms)
  float download_ms = 0;  // h device -> host
};
struct SynthesisTiming {
  float witness_wait_ms = 0;  // what the kernel waited for the witness's copy
  float total_ms = 0;         // the call: the wait and the kernel
};

// One CUDA stream (plus one for uploads) and its scratch on one device: runs one proof's device
// work at a time. Calls block until their result is on the host. Not thread-safe; two lanes
// (on one device or several) may be driven from two host threads at once. Host buffers may be
// pinned (cudaHostAlloc: full PCIe speed) or pageable (correct, slower copies).
class Lane {
 public:
  // Preallocates scratch for compute_h up to max_domain (power of two, or 0) and for G1 MSMs of
  // up to max_points; a G2 MSM grows its scratch on first use. Throws on out of memory.
  Lane(int device, Curve curve, size_t max_domain, size_t max_points, const KernelConfig& kernels = {});
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  // out_point (jacobian_bytes) = Σ scalars[i]·points[i] for i < count (count <= points.count()).
  void msm(const ResidentPoints& points, const uint64_t* scalars, size_t count, void* out_point);

  // a, b, c: evaluations on the size-n domain (Montgomery, 4 limbs each, n = 2^k <= max_domain).
  // On return a[i] = A(g·ω^i)·B(g·ω^i) - C(g·ω^i) in STANDARD form (docs/formats.md §6.3).
  // c may be null: then c = a∘b is formed on the device (§6.2), saving its upload.
  void compute_h(uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n);

  // --- one proof's vectors kept on the device, no round trip through the host ---
  // Queues the copy of the proof's witness (standard form, `count` values; pinned memory copies
  // at full speed) on the lane's upload stream; the calls below wait for it on the device, so the
  // copy overlaps whatever the lane's stream still runs. The copy stays until forget_proof().
  void upload_witness(const uint64_t* witness, size_t count);
  bool has_witness() const;
  // a = A·w, b = B·w into the lane's compute_h buffers (rows.domain() <= max_domain).
  void synthesize(const ResidentRows& rows);
  // compute_h over what synthesize left (c = a∘b formed here); h stays on the device.
  void compute_h_on_device(size_t n);
  // out_point = Σ witness[offset + i]·points[i] for i < count, from the device copy.
  void msm_witness(const ResidentPoints& points, size_t offset, size_t count, void* out_point);
  // out_point = Σ h[i]·points[i] for i < count, from the h that compute_h_on_device left.
  void msm_h(const ResidentPoints& points, size_t count, void* out_point);
  // The proof is done with the lane: its witness copy and vectors are no longer valid.
  void forget_proof();
  // Tests: the lane's a (h after compute_h_on_device) or b, n values, to the host.
  void read_vector(bool b, uint64_t* out, size_t n);

  size_t device_bytes() const;  // scratch held by this lane (tables shared per device excluded)
  int device() const;
  Curve curve() const;
  const MsmTiming& last_msm_timing() const;
  const HTiming& last_h_timing() const;
  const SynthesisTiming& last_synthesis_timing() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// For the self-test and benchmarks.
namespace testing {
enum class Field { fq, fr, fq2 };
size_t field_bytes(Curve curve, Field field);
// out[4i .. 4i+3] = a·b, a+b, a-b, a^2 of element i (Montgomery in and out), on the device.
void field_ops(int device, Curve curve, Field field, const void* a, const void* b, size_t count, void* out);
// Field products per second of a throughput kernel (median of 5 after a warm-up).
double field_mul_rate(int device, Curve curve, Field field);
// Natural-order NTT of n = 2^k Fr elements (Montgomery), forward, or inverse with the 1/n.
void ntt(int device, Curve curve, uint64_t* data, size_t n, bool inverse);
struct Bench {
  float median_ms = 0, min_ms = 0, max_ms = 0;
};
// Device-only times over resident random data (reps after one warm-up):
// the forward transform alone (natural -> bit-reversed), optionally with the bit-reversal copy;
Bench bench_ntt(int device, Curve curve, size_t n, int reps, bool natural_order, const KernelConfig& kernels = {});
// the device part of compute_h (three coset evaluations and the product), no transfers.
Bench bench_compute_h_device(int device, Curve curve, size_t n, int reps, const KernelConfig& kernels = {});
// Page-locked host memory for the benchmarks' transfers.
void* alloc_pinned(size_t bytes);
void free_pinned(void* p);
}  // namespace testing

}  // namespace pacer::cuda
