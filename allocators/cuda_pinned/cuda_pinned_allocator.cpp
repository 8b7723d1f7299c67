// Allocator "cuda_pinned": page-locked host memory from cudaHostAlloc, for the buffers a backend
// copies to a GPU (the [staging] allocator of a cuda config): copies from it run at full PCIe/NVLink
// speed and can overlap kernels, where pageable memory is first copied by the driver through a
// bounce buffer. Page-locking is slow (the kernel pins every page) and takes memory the OS cannot
// swap or reclaim: use it for staging only. Freed blocks are kept for the next proof
// (alloc::BlockPool, as the `pooled` allocator does), so each buffer is pinned once: on the H200
// host, pinning and freeing a, b and c every 2^20 proof cost ~24,600 page faults and ~24 ms of
// release per proof.
//
// params:
//   max_bytes     (integer, default 0 = no cap)  refuse to hold more than this pinned at once,
//                 cached blocks included
//   pooled        (bool, default true)  keep freed blocks for reuse
//   max_cached_mb (integer, default a quarter of physical memory)  cap on freed bytes kept
#include <cuda_runtime.h>

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "pacer/alloc/block_pool.hpp"
#include "pacer/error.hpp"
#include "pacer/plugin.hpp"

namespace {

class CudaPinnedAllocator final : public pacer::Allocator {
 public:
  explicit CudaPinnedAllocator(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  pacer::Block allocate(size_t bytes, const pacer::AllocHints& hints) override {
    // cudaHostAlloc returns page-aligned memory: enough for every alignment a caller asks.
    if (hints.align > 4096 || (hints.align & (hints.align - 1)) != 0)
      throw pacer::InputError(fmt::format("cuda_pinned allocator: alignment {} is not a power of two up to 4096",
                                          hints.align));
    const size_t size = std::max<size_t>(bytes, 1);
    const uint64_t live = live_bytes_.fetch_add(size) + size;
    if (max_bytes_ && live > max_bytes_) {
      live_bytes_.fetch_sub(size);
      throw pacer::FailedError(fmt::format(
          "cuda_pinned allocator: {} MiB more would hold {} MiB pinned, over max_bytes = {} MiB ([staging.params])",
          size >> 20, live >> 20, max_bytes_ >> 20));
    }
    void* p = nullptr;
    // Portable: usable by every device and context of the process (several GPUs share staging).
    const cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocPortable);
    if (err != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error so later calls are not blamed for it
      live_bytes_.fetch_sub(size);
      throw pacer::FailedError(fmt::format("cuda_pinned allocator: cudaHostAlloc of {} MiB failed: {} ({})", size >> 20,
                                           cudaGetErrorString(err), cudaGetErrorName(err)));
    }
    if (hints.prefault) std::memset(p, 0, size);  // pinned pages are resident already; this only zeroes
    uint64_t peak = peak_bytes_.load();
    while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live)) {
    }
    allocations_.fetch_add(1);
    return pacer::Block{static_cast<std::byte*>(p), size, 4096, true, nullptr};
  }

  void deallocate(pacer::Block block) noexcept override {
    if (!block.data) return;
    cudaFreeHost(block.data);
    live_bytes_.fetch_sub(block.bytes);
  }

  pacer::AllocStats stats() const override {
    pacer::AllocStats s;
    s.live_bytes = live_bytes_.load();
    s.peak_bytes = peak_bytes_.load();
    s.allocations = allocations_.load();
    return s;
  }

 private:
  const uint64_t max_bytes_;
  std::atomic<uint64_t> live_bytes_{0}, peak_bytes_{0}, allocations_{0};
};

std::unique_ptr<pacer::Allocator> make_cuda_pinned_allocator(const pacer::Params& params, pacer::HostServices&) {
  const int64_t max_bytes = params.get_int("max_bytes", 0);
  if (max_bytes < 0)
    throw pacer::InputError(fmt::format("{} max_bytes must be 0 (no cap) or more, got {}", params.where(), max_bytes));
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw pacer::InputError(fmt::format("allocator \"cuda_pinned\": no usable CUDA device ({}); it pins memory for "
                                        "GPU copies: choose another allocator where there is no GPU",
                                        err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports none"));
  }
  auto pinned = std::make_unique<CudaPinnedAllocator>(static_cast<uint64_t>(max_bytes));
  if (!params.get_bool("pooled", true)) return pinned;
  return std::make_unique<pacer::alloc::BlockPool>(std::move(pinned), pacer::alloc::max_cached_bytes(params), 64 << 10);
}

}  // namespace

PACER_PLUGIN(allocator, "cuda_pinned", "0.1.0", "page-locked host memory (cudaHostAlloc) for GPU staging",
             make_cuda_pinned_allocator)
