#include "backend_options.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::cuda_backend {

Options options_from(const Params& params, const std::vector<cuda::DeviceInfo>& found) {
  Options o;
  const auto where = params.where();
  const auto devices = params.get_int_array("devices", {});
  if (devices.empty()) {
    for (const auto& d : found) o.devices.push_back(d.index);
  } else {
    for (const int64_t d : devices) {
      const bool exists = std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.index == d; });
      if (!exists)
        throw InputError(fmt::format("{} devices: GPU {} does not exist (this machine has {} CUDA device{})", where, d,
                                     found.size(), found.size() == 1 ? "" : "s"));
      if (std::count(devices.begin(), devices.end(), d) > 1)
        throw InputError(fmt::format("{} devices: GPU {} is listed twice", where, d));
      o.devices.push_back(int(d));
    }
  }
  const int64_t lanes = params.get_int("lanes_per_device", 2);
  if (lanes < 1 || lanes > 16)
    throw InputError(fmt::format("{} lanes_per_device must be 1..16, got {}", where, lanes));
  o.lanes_per_device = unsigned(lanes);
  const std::string g2 = params.get_string("g2", "cpu");
  if (g2 != "cpu" && g2 != "gpu")
    throw InputError(fmt::format("{} g2 must be \"cpu\" or \"gpu\", got \"{}\"", where, g2));
  o.g2_on_gpu = g2 == "gpu";
  const std::string synthesis = params.get_string("synthesis", "gpu");
  if (synthesis != "cpu" && synthesis != "gpu")
    throw InputError(fmt::format("{} synthesis must be \"gpu\" or \"cpu\", got \"{}\"", where, synthesis));
  o.synthesis_on_gpu = synthesis == "gpu";
  const int64_t limit_mb = params.get_int("vram_limit_mb", 0);
  if (limit_mb < 0) throw InputError(fmt::format("{} vram_limit_mb must be 0 (all free memory) or more, got {}", where, limit_mb));
  o.vram_limit_bytes = uint64_t(limit_mb) << 20;
  const std::string copies = params.get_string("msm_window_copies", "off");
  if (copies != "auto" && copies != "off")
    throw InputError(fmt::format("{} msm_window_copies must be \"auto\" or \"off\", got \"{}\"", where, copies));
  o.window_copies = copies == "auto";
  o.cpu_kernels = math::CpuKernels::detect();
  auto knob = [&](const char* key) {
    const int64_t v = params.get_int(key, 0);
    if (v < 0 || v > 1 << 20)
      throw InputError(fmt::format("{} {} must be 0 (automatic) or a small count, got {}", where, key, v));
    return unsigned(v);
  };
  o.kernels.msm_window_bits = knob("msm_window_bits");
  o.kernels.msm_chunk = knob("msm_chunk");
  o.kernels.msm_pieces = knob("msm_pieces");
  o.kernels.ntt_pass_bits = knob("ntt_pass_bits");
  o.kernels.ntt_log_cols = knob("ntt_log_cols");
  try {
    cuda::check_kernel_config(o.kernels);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{} {}", where, e.what()));
  }
  return o;
}

}  // namespace pacer::cuda_backend
