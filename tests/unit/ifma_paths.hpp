#pragma once
// Runs a check with the CPU kernels' scalar paths, and again with their IFMA paths where the CPU
// has them: the kernels take the choice per call (CpuKernels), so the paths run side by side.
#include <catch2/catch.hpp>

#include "pacer/cpu/kernel_config.hpp"

namespace pacer::test {

template <class Check>
void for_each_ifma_setting(const char* kernel, const Check& check) {
  const bool ifma = math::cpu_has_ifma();
  if (!ifma) WARN("no AVX-512 IFMA on this CPU: only the scalar " << kernel << " is tested");
  for (const bool on : {false, true}) {
    if (on && !ifma) continue;
    INFO("IFMA " << kernel << ": " << on);
    check(math::CpuKernels{on, 0});
  }
}

}  // namespace pacer::test
