#pragma once
// Synthesis on the device: a = A·w, b = B·w over a key's constraint rows (the framework's
// ConstraintRows: start[2n+1], wire[], coef[] with coef = v·R²), one thread per row. The row sum
// is plain host-and-device code so the self-test runs it on the host against the framework's
// field math (selftest/host_checks.cpp). c = a∘b is formed by compute_h (NttOps::hadamard).
#include <cstdint>

#include "ff/fp.hpp"

namespace pacer::cuda::synth {

// Σ coef[k]·w[wire[k]] over [begin, end): a Montgomery product of v·R² and a standard-form w is
// v·w·R, the Montgomery form of v·w, so the sum lands in the form compute_h takes. Fully reduced
// (fp_t), hence bit-identical to the CPU's synthesis. Load functions are parameters so the device
// uses its read-only cache and the host plain reads.
template <class F, class LoadF, class LoadU32>
PACER_HD F row_sum(uint32_t begin, uint32_t end, const uint32_t* wire, const F* coef, const F* w, LoadF load_f,
                   LoadU32 load_u32) {
  F sum = F::zero();
  for (uint32_t k = begin; k < end; ++k) sum += load_f(coef + k) * load_f(w + load_u32(wire + k));
  return sum;
}

}  // namespace pacer::cuda::synth
