#pragma once
// Runs a check with a kernel's scalar path, and again with its IFMA path where the CPU has it.
#include <catch2/catch.hpp>

#include "pacer/math/ifma_field.hpp"

namespace pacer::test {

// `use_ifma` is the kernel's switch (g_use_ifma_msm, g_use_ifma_ntt); it is restored afterwards.
template <class Check>
void for_each_ifma_setting(bool& use_ifma, const char* kernel, const Check& check) {
  const bool ifma = math::detect_ifma();
  if (!ifma) WARN("no AVX-512 IFMA on this CPU (or PACER_NO_IFMA set): only the scalar " << kernel << " is tested");
  for (const bool on : {false, true}) {
    if (on && !ifma) continue;
    use_ifma = on;
    INFO("IFMA " << kernel << ": " << on);
    check();
  }
  use_ifma = ifma;
}

}  // namespace pacer::test
