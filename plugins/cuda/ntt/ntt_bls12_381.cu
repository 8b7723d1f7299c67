// NTT instance for the bls12_381 scalar field.
#include "ntt/ntt_impl.cuh"

namespace pacer::cuda::detail {
std::unique_ptr<NttOps> make_ntt_ops_bls12_381(int device, const KernelConfig& kernels) {
  return std::make_unique<ntt::NttOpsImpl<ff::bls12_381_fr>>(device, kernels);
}
}  // namespace pacer::cuda::detail
