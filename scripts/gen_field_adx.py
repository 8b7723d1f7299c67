#!/usr/bin/env python3
# Writes plugins/cpu/kernels/include/pacer/cpu/field_adx.hpp: Montgomery multiplication with
# mulx/adcx/adox for 4- and 6-limb moduli. Rerun after changing the pattern; commit both.
import sys

# Generates the mulx/adcx/adox Montgomery multiplication for N limbs (operands by name).
def gen(N):
    # registers: t0..tN as %[t0]..; limbs a0.., b0.., p0.. as memory operands, inv %[inv];
    # lo/hi temps %[lo] %[hi]; zero in %[z] (rax). rdx implicit.
    t = [f"%[t{i}]" for i in range(N+1)]
    lines = ["xorl %k[z], %k[z]"]
    # zero the accumulator
    for j in range(N+1): lines.append(f"xorq {t[j]}, {t[j]}")
    regs = list(range(N+1))  # regs[k] = register index holding accumulator word k (k = 0..N)
    for i in range(N):
        lines.append(f"movq %[b{i}], %%rdx")
        lines.append("xorl %k[z], %k[z]")  # clears CF and OF
        for j in range(N):
            lines.append(f"mulxq %[a{j}], %[lo], %[hi]")
            lines.append(f"adoxq %[lo], {t[regs[j]]}")
            lines.append(f"adcxq %[hi], {t[regs[j+1]]}")
        lines.append(f"adoxq %[z], {t[regs[N]]}")
        # reduction
        lines.append(f"movq {t[regs[0]]}, %%rdx")
        lines.append(f"imulq %[inv], %%rdx")
        lines.append("xorl %k[z], %k[z]")
        for j in range(N):
            lines.append(f"mulxq %[p{j}], %[lo], %[hi]")
            lines.append(f"adcxq %[lo], {t[regs[j]]}")
            lines.append(f"adoxq %[hi], {t[regs[j+1]]}")
        lines.append(f"adcxq %[z], {t[regs[N]]}")
        # word 0 is now zero: rotate, it becomes the new top word (must be 0 for next round: it is)
        regs = regs[1:] + regs[:1]
    # result words regs[0..N-1]
    return lines, regs

out = []
out.append('''#pragma once
// Montgomery multiplication with mulx/adcx/adox (BMI2 + ADX): two independent carry chains, one
// for the low and one for the high halves of the products. AdxMul (below) is the Mul policy of
// the cpu kernels' field types (kernels.hpp); it checks the CPU once and falls back to the
// portable product of field.hpp, which stays the oracle it is tested against.
// Written out by scripts/gen_field_adx.py: per round i, t += a*b[i] then t = (t + m*p) / 2^64; the
// word that the reduction clears becomes the next round's top word (no register moves).
#include <cstdint>

#if defined(__x86_64__) && defined(__clang__)
#include <cpuid.h>
#endif
#include "pacer/math/field.hpp"
#include "pacer/math/x86_carry_chain.hpp"

// Not under -O0 (the 6-limb version needs 14 registers) nor under ASan (it reserves some).
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(PACER_PORTABLE_FIELD) && !defined(__SANITIZE_ADDRESS__)
#define PACER_HAVE_ADX_ASM 1
#endif

namespace pacer::math {

// True when this CPU has BMI2 and ADX.
inline bool detect_adx() {
#if defined(__x86_64__)
  __builtin_cpu_init();  // may run before main, from a static initialiser
#if defined(__clang__)
  // clang (14) knows no "adx" feature name: CPUID leaf 7, EBX bit 19. (The fuzz build uses clang.)
  unsigned eax, ebx, ecx, edx;
  return __builtin_cpu_supports("bmi2") && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx >> 19 & 1);
#else
  return __builtin_cpu_supports("adx") && __builtin_cpu_supports("bmi2");
#endif
#else
  return false;
#endif
}

// Whether AdxMul runs the asm: a fact of the CPU, read once; nothing switches it at run time.
inline const bool kCpuHasAdx = detect_adx();

#ifdef PACER_HAVE_ADX_ASM
namespace adx {
''')
for N in (4, 6):
    lines, regs = gen(N)
    tnames = ", ".join(f"t{i}" for i in range(N+1))
    out.append(f"// r = a*b*2^(-{64*N}) mod p, result in [0, 2p).")
    if N == 6:
        out.append("// Out of line: it needs 14 registers; inlined into a busy caller GCC finds no allocation.")
    attr = "[[gnu::always_inline]]" if N == 4 else "[[gnu::noinline]]"
    out.append(f"{attr} inline void mont_mul_{N}(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {{")
    out.append(f"  uint64_t {tnames}, lo, hi, z;")
    out.append("  __asm__(")
    for l in lines:
        out.append(f'      "{l}\\n\\t"')
    outs = ", ".join(f'[t{i}] "=&r"(t{i})' for i in range(N+1))
    out.append(f'      : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)')
    # Memory operands only: "rm" ran out of registers ("impossible constraints") in busy callers.
    for name in "abp":
        out.append("      " + (": " if name == "a" else "  ") + ", ".join(f'[{name}{j}] "m"({name}[{j}])' for j in range(N)) + ",")
    out.append('        [inv] "rm"(inv)')
    out.append('      : "rdx", "cc");')
    for k in range(N):
        out.append(f"  r[{k}] = t{regs[k]};")
    out.append("}")
    out.append("")
out.append('''}  // namespace adx
#endif

// The product as the cpu kernels compute it: the asm where the CPU and the build allow, the
// portable product otherwise (out of line, so hot loops do not carry both versions inlined), and
// the adc/sbb chains for sums and differences.
struct AdxMul : X86CarryChain {
  template <class F>
  static PACER_HOT typename F::limbs_t mul(const typename F::limbs_t& a, const typename F::limbs_t& b) {
#ifdef PACER_HAVE_ADX_ASM
    if constexpr (F::N == 4 || F::N == 6) {
      if (kCpuHasAdx) [[likely]] {
        typename F::limbs_t r;
        if constexpr (F::N == 4) adx::mont_mul_4(r.data(), a.data(), b.data(), F::P.data(), F::INV);
        else adx::mont_mul_6(r.data(), a.data(), b.data(), F::P.data(), F::INV);
        return F::reduce_once(r);
      }
      return F::mont_mul_out_of_line(a, b);
    }
#endif
    return F::mont_mul(a, b);
  }
};

}  // namespace pacer::math
''')
open(sys.argv[1] if len(sys.argv) > 1 else 'plugins/cpu/kernels/include/pacer/cpu/field_adx.hpp', 'w').write("\n".join(out))
