#pragma once
// [backend.params] of the cuda backend, read and range-checked (an impossible request is an
// error that names the key, never a quiet fallback).
#include <cstdint>
#include <vector>

#include "gpu_api.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/params.hpp"

namespace pacer::cuda_backend {

struct Options {
  std::vector<int> devices;        // CUDA device indices in use
  unsigned lanes_per_device = 2;   // proofs in flight per GPU
  bool g2_on_gpu = false;          // g2 = "gpu" | "cpu"
  bool synthesis_on_gpu = true;    // synthesis = "gpu" | "cpu"
  uint64_t vram_limit_bytes = 0;   // per device; 0 = what the device has free at start, less 1 GiB
  bool window_copies = false;      // msm_window_copies = "auto" | "off" (gpu_api.hpp, WindowCopies)
  math::CpuKernels cpu_kernels;    // for the G2 MSM on the CPU and the key-point checks
  cuda::KernelConfig kernels;      // GPU kernel tuning; all 0 = automatic
};

// The options, with the GPUs found on this machine (devices = [] means all of them).
Options options_from(const Params& params, const std::vector<cuda::DeviceInfo>& found);

}  // namespace pacer::cuda_backend
