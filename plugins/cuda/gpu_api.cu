// Host API: devices, resident points and rows (gpu_api.hpp), and the testing entry points. Lanes
// are in lane.cu.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "internal.hpp"
#include "ec/curves.hpp"
#include "msm/logic.hpp"

namespace pacer::cuda {

namespace {
std::mutex g_error_mu;
std::string g_last_error;

void set_last_error(std::string s) {
  std::lock_guard lock(g_error_mu);
  g_last_error = std::move(s);
}

size_t fq_bytes(Curve c) { return c == Curve::bn254 ? 32 : 48; }

}  // namespace

namespace detail {
uint32_t log2_exact(size_t n, const char* what) {
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument(std::string("pacer::cuda: ") + what + " is not a power of two");
  uint32_t L = 0;
  while ((size_t(1) << L) < n) ++L;
  return L;
}

std::unique_ptr<NttOps> make_ntt(Curve c, int device, const KernelConfig& k) {
  return c == Curve::bn254 ? make_ntt_ops_bn254(device, k) : make_ntt_ops_bls12_381(device, k);
}

std::unique_ptr<MsmOps> make_msm(Curve c, bool g2, int device, const KernelConfig& k) {
  if (c == Curve::bn254) return g2 ? make_msm_ops_bn254_g2(device, k) : make_msm_ops_bn254_g1(device, k);
  return g2 ? make_msm_ops_bls12_381_g2(device, k) : make_msm_ops_bls12_381_g1(device, k);
}
}  // namespace detail

using detail::log2_exact;
using detail::make_msm;
using detail::make_ntt;

void check_kernel_config(const KernelConfig& k) {
  auto in = [](const char* name, unsigned v, unsigned lo, unsigned hi) {
    if (v != 0 && (v < lo || v > hi))
      throw std::invalid_argument(std::string(name) + " must be 0 (automatic) or " + std::to_string(lo) + ".." +
                                  std::to_string(hi) + ", got " + std::to_string(v));
  };
  in("msm_window_bits", k.msm_window_bits, 4, 22);
  in("msm_chunk", k.msm_chunk, 2, 4096);
  in("msm_pieces", k.msm_pieces, 1, 8);
  in("ntt_pass_bits", k.ntt_pass_bits, 1, 12);
  in("ntt_log_cols", k.ntt_log_cols, 1, 5);
}

DeviceLost::~DeviceLost() = default;  // the one home of its vtable and type info

namespace {
// The errors that leave the context unusable (CUDA's "sticky" errors) or mean the device is gone.
bool device_is_lost(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorContextIsDestroyed:
    case cudaErrorExternalDevice: return true;
    default: return false;
  }
}
}  // namespace

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  const std::string what = std::string("pacer::cuda: ") + file + ":" + std::to_string(line) + ": " + call +
                           " failed: " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  if (device_is_lost(err)) throw DeviceLost(what);
  throw std::runtime_error(what);
}

[[noreturn]] void throw_out_of_memory(size_t bytes, const char* what, int device) {
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  cudaGetLastError();
  throw std::runtime_error("pacer::cuda: out of device memory: " + std::to_string(bytes >> 20) + " MiB for " + what +
                           " on device " + std::to_string(device) + " (" + std::to_string(free_b >> 20) + " of " +
                           std::to_string(total_b >> 20) + " MiB free)");
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    set_last_error(std::string("no CUDA device: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
    return out;
  }
  if (count == 0) set_last_error("no CUDA device: the driver reports none");
  for (int d = 0; d < count; ++d) {
    try {
      cudaDeviceProp prop{};
      CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
      // Before the device's context exists: host threads that wait for it sleep, not spin.
      // Refused when another part of the process made the context first; then only our events
      // block (Event), which is where the lanes wait.
      if (cudaSetDevice(d) == cudaSuccess && cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess)
        cudaGetLastError();
      DeviceInfo info;
      info.index = d;
      info.name = prop.name;
      info.sms = prop.multiProcessorCount;
      info.cc_major = prop.major;
      info.cc_minor = prop.minor;
      DeviceScope scope(d);
      CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
      out.push_back(info);
    } catch (const std::exception& e) {
      set_last_error(e.what());
    }
  }
  return out;
}

std::string last_error() {
  std::lock_guard lock(g_error_mu);
  return g_last_error;
}

size_t affine_bytes(Curve c, bool g2) { return (g2 ? 4 : 2) * fq_bytes(c); }
size_t jacobian_bytes(Curve c, bool g2) { return (g2 ? 6 : 3) * fq_bytes(c); }

// --- resident points ----------------------------------------------------------------------------

ResidentPoints::ResidentPoints(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResidentPoints::~ResidentPoints() {
  try {
    DeviceScope scope(impl_->device);
    impl_.reset();
  } catch (...) {
  }
}
int ResidentPoints::device() const { return impl_->device; }
Curve ResidentPoints::curve() const { return impl_->curve; }
bool ResidentPoints::g2() const { return impl_->g2; }
size_t ResidentPoints::count() const { return impl_->count; }
size_t ResidentPoints::bytes() const { return impl_->buf.bytes(); }
const WindowCopies& ResidentPoints::copies() const { return impl_->copies; }

// --- resident rows -------------------------------------------------------------------------------

ResidentRows::ResidentRows(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResidentRows::~ResidentRows() {
  try {
    DeviceScope scope(impl_->device);
    impl_.reset();
  } catch (...) {
  }
}
int ResidentRows::device() const { return impl_->device; }
Curve ResidentRows::curve() const { return impl_->curve; }
size_t ResidentRows::domain() const { return impl_->domain; }
size_t ResidentRows::terms() const { return impl_->terms; }
size_t ResidentRows::bytes() const { return impl_->start.bytes() + impl_->wire.bytes() + impl_->coef.bytes(); }

size_t rows_bytes(size_t domain, size_t terms) { return (2 * domain + 1) * 4 + terms * (4 + 32); }

// --- staged uploads -----------------------------------------------------------------------------

struct UploadStaging::Impl {
  size_t bytes;
  PinnedBuffer buffers[2];  // cudaMallocHost memory is portable under UVA: any device may copy from it
  double fill_ms = 0, wait_ms = 0;
  explicit Impl(size_t b) : bytes(b), buffers{PinnedBuffer(b), PinnedBuffer(b)} {}
};
UploadStaging::UploadStaging(size_t buffer_bytes) : impl_(std::make_unique<Impl>(buffer_bytes)) {}
UploadStaging::~UploadStaging() = default;
double UploadStaging::fill_ms() const { return impl_->fill_ms; }
double UploadStaging::dma_wait_ms() const { return impl_->wait_ms; }

void synchronize(int device) {
  DeviceScope scope(device);
  CUDA_CHECK(cudaDeviceSynchronize());
}

namespace {
// Copies `bytes` to `dst` on the current device, `fill` writing chunks of whole `unit`s into one
// buffer while the other is on its way. Returns when everything is on the device.
void staged_copy(UploadStaging::Impl& st, void* dst, size_t bytes, size_t unit, const FillChunk& fill) {
  const size_t chunk = st.bytes / unit * unit;
  if (chunk == 0) throw std::invalid_argument("pacer::cuda: staging buffers smaller than one element");
  Stream stream;
  Event copied[2] = {Event(false), Event(false)};
  bool in_flight[2] = {false, false};
  try {
    size_t i = 0;
    for (size_t offset = 0; offset < bytes; offset += chunk, ++i) {
      const size_t n = std::min(chunk, bytes - offset), b = i & 1;
      using Clock = std::chrono::steady_clock;
      const auto t0 = Clock::now();
      if (in_flight[b]) copied[b].sync();  // the DMA that read this buffer last is done
      const auto t1 = Clock::now();
      fill(offset, n, st.buffers[b].get());
      st.wait_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
      st.fill_ms += std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
      CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + offset, st.buffers[b].get(), n, cudaMemcpyHostToDevice,
                                 stream));
      copied[b].record(stream);
      in_flight[b] = true;
    }
    stream.sync();
  } catch (...) {
    cudaStreamSynchronize(stream);  // no DMA may still read the buffers once they are refilled or freed
    throw;
  }
}

using CopyIn = std::function<void(void* dst, size_t bytes)>;

// wait = false: the window copies are computed on the legacy stream while the caller goes on (the
// next basis's upload runs on a non-blocking stream beside them); synchronize() before use.
std::unique_ptr<ResidentPoints> make_resident_points(int device, Curve curve, bool g2, size_t count,
                                                     const WindowCopies& copies, const CopyIn& copy_in,
                                                     bool wait = true) {
  DeviceScope scope(device);
  auto impl = std::make_unique<ResidentPoints::Impl>();
  impl->device = device;
  impl->curve = curve;
  impl->g2 = g2;
  impl->count = count;
  if (g2 && copies.copies > 1) throw std::invalid_argument("pacer::cuda: window copies are for G1 bases only");
  impl->copies = copies.copies > 1 ? copies : WindowCopies{};
  const size_t bytes = count * affine_bytes(curve, g2);
  impl->buf.allocate(bytes * impl->copies.copies, g2 ? "resident G2 points" : "resident G1 points", device);
  if (bytes) copy_in(impl->buf.get(), bytes);
  if (bytes && impl->copies.copies > 1) {
    // A kernel launch only (the ops object holds nothing the kernel uses).
    make_msm(curve, g2, device, {})->precompute(impl->buf.get(), count, impl->copies, nullptr);
    if (wait) CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream: done before any lane reads them
  }
  return std::make_unique<ResidentPoints>(std::move(impl));
}
}  // namespace

std::unique_ptr<ResidentRows> upload_rows(int device, Curve curve, size_t domain, const uint32_t* start,
                                          const uint32_t* wire, const uint64_t* coef, size_t terms,
                                          UploadStaging* staging, const HostCopy& copy) {
  if (domain == 0 || domain >= (size_t(1) << 31)) throw std::invalid_argument("pacer::cuda: rows of a bad domain size");
  if (start[2 * domain] != terms) throw std::invalid_argument("pacer::cuda: row starts do not end at the term count");
  DeviceScope scope(device);
  auto impl = std::make_unique<ResidentRows::Impl>();
  impl->device = device;
  impl->curve = curve;
  impl->domain = domain;
  impl->terms = terms;
  impl->start.allocate((2 * domain + 1) * 4, "constraint row starts", device);
  impl->wire.allocate(std::max<size_t>(terms, 1) * 4, "constraint row wires", device);
  impl->coef.allocate(std::max<size_t>(terms, 1) * 32, "constraint row coefficients", device);
  const auto put = [&](void* dst, const void* src, size_t bytes, size_t unit) {
    if (!staging || !copy) {
      CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
      return;
    }
    staged_copy(staging->impl(), dst, bytes, unit, [&](size_t offset, size_t n, void* chunk) {
      copy(chunk, static_cast<const char*>(src) + offset, n);
    });
  };
  put(impl->start.get(), start, (2 * domain + 1) * 4, 4);
  if (terms) {
    put(impl->wire.get(), wire, terms * 4, 4);
    put(impl->coef.get(), coef, terms * 32, 32);
  }
  return std::make_unique<ResidentRows>(std::move(impl));
}

// --- window copies ------------------------------------------------------------------------------

WindowCopies plan_window_copies(Curve curve, bool g2, size_t count) {
  if (g2 || count < (size_t(1) << 16)) return {};
  const uint32_t bits = curve == Curve::bn254 ? ec::Bn254G1::scalar_bits : ec::Bls12_381G1::scalar_bits;
  const msm::WindowPlan wp = msm::plan_windows(count, bits, 0, true);
  if (wp.windows > msm::kMaxCopies || count * wp.windows >= (size_t(1) << 31)) return {};
  return {wp.windows, wp.c};
}

std::unique_ptr<ResidentPoints> upload_points(int device, Curve curve, bool g2, const void* affine_points, size_t count,
                                              const WindowCopies& copies) {
  return make_resident_points(device, curve, g2, count, copies, [&](void* dst, size_t bytes) {
    CUDA_CHECK(cudaMemcpy(dst, affine_points, bytes, cudaMemcpyHostToDevice));
  });
}

std::unique_ptr<ResidentPoints> upload_points(int device, Curve curve, bool g2, size_t count, UploadStaging& staging,
                                              const FillChunk& fill, const WindowCopies& copies) {
  return make_resident_points(
      device, curve, g2, count, copies,
      [&](void* dst, size_t bytes) { staged_copy(staging.impl(), dst, bytes, affine_bytes(curve, g2), fill); },
      /*wait=*/false);
}

// --- testing ------------------------------------------------------------------------------------

namespace testing {

size_t field_bytes(Curve curve, Field field) {
  if (field == Field::fr) return 32;
  return (field == Field::fq2 ? 2 : 1) * fq_bytes(curve);
}

void field_ops(int device, Curve curve, Field field, const void* a, const void* b, size_t count, void* out) {
  DeviceScope scope(device);
  auto ops = detail::make_field_ops(curve, int(field), device);
  const size_t eb = ops->element_bytes();
  Stream s;
  DeviceBuffer da(count * eb, "field test", device), db(count * eb, "field test", device),
      dout(4 * count * eb, "field test", device);
  CUDA_CHECK(cudaMemcpyAsync(da.get(), a, count * eb, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemcpyAsync(db.get(), b, count * eb, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemsetAsync(dout.get(), 0xa5, 4 * count * eb, s));  // poison: every output must be written
  ops->ops(dout.get(), da.get(), db.get(), count, s);
  CUDA_CHECK(cudaMemcpyAsync(out, dout.get(), 4 * count * eb, cudaMemcpyDeviceToHost, s));
  s.sync();
}

double field_mul_rate(int device, Curve curve, Field field) {
  DeviceScope scope(device);
  auto ops = detail::make_field_ops(curve, int(field), device);
  Stream s;
  return ops->mul_rate(5, s);
}

void ntt(int device, Curve curve, uint64_t* data, size_t n, bool inverse) {
  const uint32_t L = log2_exact(n, "NTT size");
  DeviceScope scope(device);
  auto ops = make_ntt(curve, device, KernelConfig{});
  Stream s;
  ops->prepare(L, s);
  DeviceBuffer d(n * 32, "NTT test", device), tmp(n * 32, "NTT test", device);
  CUDA_CHECK(cudaMemcpyAsync(d.get(), data, n * 32, cudaMemcpyHostToDevice, s));
  ops->ntt_natural(d.get(), tmp.get(), L, inverse, s);
  CUDA_CHECK(cudaMemcpyAsync(data, d.get(), n * 32, cudaMemcpyDeviceToHost, s));
  s.sync();
}

namespace {
// Random elements below r (top word masked) for the device-only benchmarks.
void fill_random_fr(DeviceBuffer& buf, size_t n, Stream& s) {
  std::vector<uint32_t> host(n * 8);
  uint32_t seed = 99;
  for (size_t i = 0; i < host.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    host[i] = (i % 8 == 7) ? (seed & 0x0fffffffu) : seed;
  }
  CUDA_CHECK(cudaMemcpyAsync(buf.get(), host.data(), n * 32, cudaMemcpyHostToDevice, s));
  s.sync();
}

template <class Fn>
Bench time_reps(int reps, Stream& s, Fn&& fn) {
  Event start, stop;
  std::vector<float> ms;
  for (int r = 0; r <= reps; ++r) {
    start.record(s);
    fn();
    stop.record(s);
    stop.sync();
    if (r > 0) ms.push_back(stop.since(start));
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}
}  // namespace

Bench bench_ntt(int device, Curve curve, size_t n, int reps, bool natural_order, const KernelConfig& kernels) {
  check_kernel_config(kernels);
  const uint32_t L = log2_exact(n, "NTT size");
  DeviceScope scope(device);
  auto ops = make_ntt(curve, device, kernels);
  Stream s;
  ops->prepare(L, s);
  DeviceBuffer d(n * 32, "NTT benchmark", device), tmp(natural_order ? n * 32 : 0, "NTT benchmark", device);
  fill_random_fr(d, n, s);
  return time_reps(reps, s, [&] {
    if (natural_order) ops->ntt_natural(d.get(), tmp.get(), L, false, s);
    else ops->dif(d.get(), L, false, s);
  });
}

Bench bench_compute_h_device(int device, Curve curve, size_t n, int reps, const KernelConfig& kernels) {
  check_kernel_config(kernels);
  const uint32_t L = log2_exact(n, "compute_h size");
  DeviceScope scope(device);
  auto ops = make_ntt(curve, device, kernels);
  Stream s;
  ops->prepare(L, s);
  DeviceBuffer d(3 * n * 32, "compute_h benchmark", device);
  fill_random_fr(d, 3 * n, s);
  auto* a = d.get<unsigned char>();
  return time_reps(reps, s, [&] {
    ops->coset_eval(a, L, s);
    ops->coset_eval(a + n * 32, L, s);
    ops->coset_eval(a + 2 * n * 32, L, s);
    ops->h(a, a + n * 32, a + 2 * n * 32, n, s);
  });
}

void* alloc_pinned(size_t bytes) {
  void* p = nullptr;
  CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}
void free_pinned(void* p) {
  if (p) cudaFreeHost(p);
}

}  // namespace testing
}  // namespace pacer::cuda
