#pragma once
// A proving key resident for the cuda backend: the parts on each GPU, and what stays on the host.
#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "gpu_api.hpp"
#include "pacer/backend.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/formats/constraint_rows.hpp"

namespace pacer::cuda_backend {

using namespace pacer::math;

// What the backend asks of a key whatever its curve.
class CudaKey : public ResidentKey {
 public:
  // Synthesis on the GPU: the constraint rows are on every device, and a proof's vectors stay there.
  virtual bool rows_on_device() const = 0;
  // What the key holds on each device, and on the host (B2 for the G2 MSM on the CPU, the rows for
  // synthesis on the CPU).
  virtual uint64_t device_bytes() const = 0;
  virtual uint64_t host_bytes() const = 0;
  // What a proof's calls allocate on the host: the G2 MSM's scratch where it runs on the CPU.
  virtual uint64_t host_scratch_per_proof(size_t threads, const CpuKernels& kernels) const = 0;
};

// A key resident on every device the backend uses (G1 bases, B2 with g2 = "gpu", the constraint
// rows with synthesis = "gpu" where they fit), B2 on the host when the G2 MSM runs on the CPU, and
// the rows on the host when synthesis runs there.
template <class Curve>
class CudaResidentKey final : public CudaKey {
 public:
  struct OnDevice {
    std::array<std::unique_ptr<cuda::ResidentPoints>, 4> g1;  // indexed by Basis
    std::unique_ptr<cuda::ResidentPoints> b2;
    std::unique_ptr<cuda::ResidentRows> rows;  // null: synthesis on the CPU, from host_rows
  };

  // `held`: the backend's count of key bytes per device, which this key adds to while it lives.
  // `host_rows`: the constraint rows when synthesis runs on the CPU (null when they are on every device).
  CudaResidentKey(std::shared_ptr<const ProvingKey> key, std::vector<OnDevice> devices, KeyPoints<typename Curve::G2> b2,
                  std::shared_ptr<const ConstraintRows> host_rows, std::shared_ptr<std::atomic<uint64_t>> held)
      : key_(std::move(key)),
        devices_(std::move(devices)),
        b2_host_(std::move(b2)),
        rows_(std::move(host_rows)),
        held_(std::move(held)) {
    *held_ += bytes_per_device();
  }
  ~CudaResidentKey() override { *held_ -= bytes_per_device(); }
  CudaResidentKey(const CudaResidentKey&) = delete;
  CudaResidentKey& operator=(const CudaResidentKey&) = delete;
  const ProvingKey& key() const override { return *key_; }
  const OnDevice& on(size_t device_slot) const { return devices_[device_slot]; }
  std::span<const Affine<typename Curve::G2>> b2_host() const { return b2_host_.points(); }
  const ConstraintRows& host_rows() const { return *rows_; }
  bool rows_on_device() const override { return !rows_; }
  uint64_t device_bytes() const override { return bytes_per_device(); }
  uint64_t host_bytes() const override {
    return b2_host_.points().size() * sizeof(Affine<typename Curve::G2>) + (rows_ ? rows_->bytes() : 0);
  }
  uint64_t host_scratch_per_proof(size_t threads, const CpuKernels& kernels) const override {
    return msm_scratch_bytes<typename Curve::G2>(b2_host_.points().size(), threads, kernels);
  }

 private:
  uint64_t bytes_per_device() const {  // the same points on every device
    uint64_t total = 0;
    const OnDevice& d = devices_.front();
    for (const auto& p : d.g1) total += p ? p->bytes() : 0;
    return total + (d.b2 ? d.b2->bytes() : 0) + (d.rows ? d.rows->bytes() : 0);
  }

  std::shared_ptr<const ProvingKey> key_;
  std::vector<OnDevice> devices_;
  KeyPoints<typename Curve::G2> b2_host_;
  std::shared_ptr<const ConstraintRows> rows_;
  std::shared_ptr<std::atomic<uint64_t>> held_;
};

}  // namespace pacer::cuda_backend
