// MSM instance for Bls12_381G1 (one file per group, so the four compile in parallel).
#include "msm/pippenger.cuh"

namespace pacer::cuda::detail {
std::unique_ptr<MsmOps> make_msm_ops_bls12_381_g1(int device, const KernelConfig& kernels) {
  return std::make_unique<msm::MsmOpsImpl<ec::Bls12_381G1>>(device, kernels);
}
}  // namespace pacer::cuda::detail
