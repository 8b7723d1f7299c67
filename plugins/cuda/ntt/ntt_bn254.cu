// NTT instance for the bn254 scalar field.
#include "ntt/ntt_impl.cuh"

namespace pacer::cuda::detail {
std::unique_ptr<NttOps> make_ntt_ops_bn254(int device, const KernelConfig& kernels) {
  return std::make_unique<ntt::NttOpsImpl<ff::bn254_fr>>(device, kernels);
}
}  // namespace pacer::cuda::detail
