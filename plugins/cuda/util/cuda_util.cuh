#pragma once
// Error checks and RAII owners for device memory, pinned memory, streams and events. Every
// failure throws std::runtime_error (file:line, the call, cudaGetErrorString); nothing exits.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace pacer::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_out_of_memory(size_t bytes, const char* what, int device);

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    const cudaError_t pacer_err_ = (call);                                                 \
    if (pacer_err_ != cudaSuccess) ::pacer::cuda::throw_cuda_error(pacer_err_, #call, __FILE__, __LINE__); \
  } while (0)
// After a kernel launch: configuration errors now, execution errors at the next synchronisation.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

// Makes `device` current for the scope (CUDA's current device is per host thread).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Untyped device allocation; `what` names it in the out-of-memory message.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t bytes, const char* what, int device) { allocate(bytes, what, device); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  void allocate(size_t bytes, const char* what, int device) {
    release();
    if (bytes == 0) return;
    const cudaError_t err = cudaMalloc(&ptr_, bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the (non-sticky) error before reporting it
      ptr_ = nullptr;
      throw_out_of_memory(bytes, what, device);
    }
    CUDA_CHECK(err);
    bytes_ = bytes;
  }
  // Grows (never shrinks) to at least `bytes`; the old contents are lost.
  void reserve(size_t bytes, const char* what, int device) {
    if (bytes > bytes_) allocate(bytes, what, device);
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t bytes) {
    if (bytes) CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
    bytes_ = bytes;
  }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  // Blocks (no spin) where list_devices set cudaDeviceScheduleBlockingSync; Event::sync always does.
  void sync() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// Waiting on an event blocks the host thread instead of spinning: a lane's thread waits for most
// of a GPU proof, and a spinning wait made every GPU millisecond a CPU millisecond too.
class Event {
 public:
  explicit Event(bool timing = true) {
    CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventBlockingSync | (timing ? 0u : unsigned(cudaEventDisableTiming))));
  }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }
  void sync() const { CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float since(const Event& start) const {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// Is `p` host memory the device can DMA from directly (cudaHostAlloc / cudaHostRegister)?
inline bool is_pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

inline unsigned blocks_for(size_t threads, unsigned per_block) { return unsigned((threads + per_block - 1) / per_block); }

}  // namespace pacer::cuda
