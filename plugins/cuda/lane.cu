// Lanes (gpu_api.hpp): one CUDA stream for kernels and one for uploads, with their scratch, on one
// device. A proof's vectors may stay on the device between calls (upload_witness, synthesize,
// compute_h_on_device, msm_witness, msm_h): then nothing of it crosses PCIe but the witness, once.
#include <stdexcept>
#include <string>

#include "internal.hpp"

namespace pacer::cuda {

using detail::log2_exact;
using detail::make_msm;
using detail::make_ntt;

// What the lane's a/b/c buffers hold for the proof on it.
enum class Vectors { none, ab, h };

struct Lane::Impl {
  int device;
  Curve curve;
  size_t max_domain;
  Stream stream, up;  // created on the current device: the constructor's DeviceScope
  Event start, uploaded, computed, done, a_up, b_up, c_up, witness_up;
  std::unique_ptr<detail::NttOps> ntt;
  std::unique_ptr<detail::MsmOps> msm_g1, msm_g2;
  detail::MsmScratch scratch;
  DeviceBuffer abc;      // a, b, c of compute_h
  DeviceBuffer witness;  // the proof's witness, from upload_witness
  size_t witness_count = 0;
  bool has_witness = false;
  Vectors vectors = Vectors::none;
  MsmTiming msm_timing;
  HTiming h_timing;
  SynthesisTiming synthesis_timing;
  KernelConfig kernels;

  Impl(int d, Curve c, size_t dom, const KernelConfig& k) : device(d), curve(c), max_domain(dom), kernels(k) {}

  void msm(const ResidentPoints& points, const void* host_scalars, const void* device_scalars, size_t count,
           void* out_point);
};

Lane::Lane(int device, Curve curve, size_t max_domain, size_t max_points, const KernelConfig& kernels) {
  check_kernel_config(kernels);
  DeviceScope scope(device);
  impl_ = std::make_unique<Impl>(device, curve, max_domain, kernels);
  auto& m = *impl_;
  m.ntt = make_ntt(curve, device, kernels);
  m.msm_g1 = make_msm(curve, false, device, kernels);
  if (max_domain) {
    m.ntt->prepare(log2_exact(max_domain, "max_domain"), m.stream);
    m.abc.allocate(3 * max_domain * 32, "compute_h a/b/c", device);
  }
  if (max_points) m.msm_g1->reserve(m.scratch, max_points);
  m.stream.sync();
}

Lane::~Lane() {
  try {
    DeviceScope scope(impl_->device);  // streams and buffers go back to their own device
    impl_.reset();
  } catch (...) {
  }
}

int Lane::device() const { return impl_->device; }
Curve Lane::curve() const { return impl_->curve; }
size_t Lane::device_bytes() const {
  return impl_->abc.bytes() + impl_->witness.bytes() + impl_->scratch.total_bytes();
}
const MsmTiming& Lane::last_msm_timing() const { return impl_->msm_timing; }
const HTiming& Lane::last_h_timing() const { return impl_->h_timing; }
const SynthesisTiming& Lane::last_synthesis_timing() const { return impl_->synthesis_timing; }

void Lane::Impl::msm(const ResidentPoints& points, const void* host_scalars, const void* device_scalars, size_t count,
                     void* out_point) {
  if (points.curve() != curve) throw std::invalid_argument("pacer::cuda: MSM points are for another curve");
  if (points.device() != device) throw std::invalid_argument("pacer::cuda: MSM points live on another device");
  if (count > points.count()) throw std::invalid_argument("pacer::cuda: more MSM scalars than points");
  DeviceScope scope(device);
  auto& ops = points.g2() ? msm_g2 : msm_g1;
  if (!ops) ops = make_msm(curve, points.g2(), device, kernels);
  ops->reserve(scratch, count);
  start.record(stream);
  detail::MsmStats stats;
  ops->run(points.impl().buf.get(), count, points.count(), points.copies(), host_scalars, device_scalars, scratch,
           stream, up, out_point, &stats);
  done.record(stream);
  done.sync();
  msm_timing.total_ms = done.since(start);
  msm_timing.upload_ms = stats.upload_ms;
  msm_timing.upload_wait_ms = stats.upload_wait_ms;
  msm_timing.compute_ms = msm_timing.total_ms - stats.upload_wait_ms;
  msm_timing.pieces = stats.pieces;
  msm_timing.window_bits = stats.c;
  msm_timing.windows = stats.windows;
  msm_timing.copies = stats.copies;
  msm_timing.digits_ms = stats.digits_ms;
  msm_timing.sort_ms = stats.sort_ms;
  msm_timing.accumulate_ms = stats.accumulate_ms;
  msm_timing.reduce_ms = stats.reduce_ms;
  msm_timing.finish_ms = stats.finish_ms;
}

void Lane::msm(const ResidentPoints& points, const uint64_t* scalars, size_t count, void* out_point) {
  impl_->msm(points, scalars, nullptr, count, out_point);
}

void Lane::compute_h(uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n) {
  auto& m = *impl_;
  const uint32_t L = log2_exact(n, "compute_h size");
  if (n > m.max_domain) throw std::invalid_argument("pacer::cuda: compute_h size exceeds the lane's max_domain");
  DeviceScope scope(m.device);
  m.ntt->prepare(L, m.stream);
  m.vectors = Vectors::none;  // the buffers now hold this call's vectors, not a resident proof's
  const size_t bytes = n * 32;
  auto* da = m.abc.get<unsigned char>();
  auto* db = da + bytes;
  auto* dc = db + bytes;
  // Uploads on their own stream, each followed by an event the transforms wait for.
  m.start.record(m.up);
  CUDA_CHECK(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, m.up));
  m.a_up.record(m.up);
  CUDA_CHECK(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, m.up));
  m.b_up.record(m.up);
  if (c) CUDA_CHECK(cudaMemcpyAsync(dc, c, bytes, cudaMemcpyHostToDevice, m.up));
  m.c_up.record(m.up);
  m.uploaded.record(m.up);
  if (!c) {
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.b_up, 0));
    m.ntt->hadamard(dc, da, db, n, m.stream);
    m.ntt->coset_eval(da, L, m.stream);
    m.ntt->coset_eval(db, L, m.stream);
    m.ntt->coset_eval(dc, L, m.stream);
  } else {
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.a_up, 0));
    m.ntt->coset_eval(da, L, m.stream);
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.b_up, 0));
    m.ntt->coset_eval(db, L, m.stream);
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.c_up, 0));
    m.ntt->coset_eval(dc, L, m.stream);
  }
  m.ntt->h(da, db, dc, n, m.stream);
  m.computed.record(m.stream);
  CUDA_CHECK(cudaMemcpyAsync(a, da, bytes, cudaMemcpyDeviceToHost, m.stream));
  m.done.record(m.stream);
  m.done.sync();
  CUDA_CHECK(cudaStreamSynchronize(m.up));
  m.h_timing.upload_ms = m.uploaded.since(m.start);
  m.h_timing.download_ms = m.done.since(m.computed);
  m.h_timing.total_ms = m.done.since(m.start);
}

// --- a proof's vectors on the device ------------------------------------------------------------

void Lane::upload_witness(const uint64_t* witness, size_t count) {
  auto& m = *impl_;
  DeviceScope scope(m.device);
  // The previous proof's kernels may still read the buffer: the copy waits for the lane's stream.
  m.start.record(m.stream);
  CUDA_CHECK(cudaStreamWaitEvent(m.up, m.start, 0));
  m.witness.reserve(count * 32, "the proof's witness", m.device);
  CUDA_CHECK(cudaMemcpyAsync(m.witness.get(), witness, count * 32, cudaMemcpyHostToDevice, m.up));
  m.witness_up.record(m.up);
  m.witness_count = count;
  m.has_witness = true;
}

bool Lane::has_witness() const { return impl_->has_witness; }

void Lane::synthesize(const ResidentRows& rows) {
  auto& m = *impl_;
  if (!m.has_witness) throw std::logic_error("pacer::cuda: synthesize before upload_witness");
  if (rows.device() != m.device || rows.curve() != m.curve)
    throw std::invalid_argument("pacer::cuda: constraint rows of another device or curve");
  if (rows.domain() > m.max_domain) throw std::invalid_argument("pacer::cuda: rows exceed the lane's max_domain");
  DeviceScope scope(m.device);
  const size_t n = rows.domain();
  auto* da = m.abc.get<unsigned char>();
  const auto& r = rows.impl();
  m.start.record(m.stream);
  CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.witness_up, 0));
  m.uploaded.record(m.stream);
  m.ntt->synthesize(da, da + n * 32, r.start.get<uint32_t>(), r.wire.get<uint32_t>(), r.coef.get(), m.witness.get(),
                    uint32_t(n), m.stream);
  m.done.record(m.stream);
  m.done.sync();
  m.vectors = Vectors::ab;
  m.synthesis_timing.witness_wait_ms = m.uploaded.since(m.start);
  m.synthesis_timing.total_ms = m.done.since(m.start);
}

void Lane::compute_h_on_device(size_t n) {
  auto& m = *impl_;
  if (m.vectors != Vectors::ab) throw std::logic_error("pacer::cuda: compute_h_on_device before synthesize");
  const uint32_t L = log2_exact(n, "compute_h size");
  if (n > m.max_domain) throw std::invalid_argument("pacer::cuda: compute_h size exceeds the lane's max_domain");
  DeviceScope scope(m.device);
  m.ntt->prepare(L, m.stream);
  auto* da = m.abc.get<unsigned char>();
  auto* db = da + n * 32;
  auto* dc = db + n * 32;
  m.start.record(m.stream);
  m.ntt->hadamard(dc, da, db, n, m.stream);
  m.ntt->coset_eval(da, L, m.stream);
  m.ntt->coset_eval(db, L, m.stream);
  m.ntt->coset_eval(dc, L, m.stream);
  m.ntt->h(da, db, dc, n, m.stream);
  m.done.record(m.stream);
  m.done.sync();
  m.vectors = Vectors::h;
  m.h_timing = {0, m.done.since(m.start), 0};
}

void Lane::msm_witness(const ResidentPoints& points, size_t offset, size_t count, void* out_point) {
  auto& m = *impl_;
  if (!m.has_witness) throw std::logic_error("pacer::cuda: msm_witness before upload_witness");
  if (offset > m.witness_count || count > m.witness_count - offset)
    throw std::invalid_argument("pacer::cuda: MSM scalars past the end of the witness");
  {
    DeviceScope scope(m.device);
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.witness_up, 0));
  }
  m.msm(points, nullptr, m.witness.get<unsigned char>() + offset * 32, count, out_point);
}

void Lane::msm_h(const ResidentPoints& points, size_t count, void* out_point) {
  auto& m = *impl_;
  if (m.vectors != Vectors::h) throw std::logic_error("pacer::cuda: msm_h before compute_h_on_device");
  if (count > m.max_domain) throw std::invalid_argument("pacer::cuda: more h values than the lane's domain");
  m.msm(points, nullptr, m.abc.get(), count, out_point);
}

void Lane::forget_proof() {
  impl_->has_witness = false;
  impl_->witness_count = 0;
  impl_->vectors = Vectors::none;
}

void Lane::read_vector(bool b, uint64_t* out, size_t n) {
  auto& m = *impl_;
  if (n > m.max_domain) throw std::invalid_argument("pacer::cuda: read past the lane's vectors");
  DeviceScope scope(m.device);
  // a at the start of the buffer, b after n values (the layout synthesize and compute_h share).
  CUDA_CHECK(cudaMemcpyAsync(out, m.abc.get<unsigned char>() + (b ? n * 32 : 0), n * 32, cudaMemcpyDeviceToHost,
                             m.stream));
  m.stream.sync();
}

}  // namespace pacer::cuda
