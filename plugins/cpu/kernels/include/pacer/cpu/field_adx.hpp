#pragma once
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

// r = a*b*2^(-256) mod p, result in [0, 2p).
[[gnu::always_inline]] inline void mont_mul_4(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, lo, hi, z;
  __asm__(
      "xorl %k[z], %k[z]\n\t"
      "xorq %[t0], %[t0]\n\t"
      "xorq %[t1], %[t1]\n\t"
      "xorq %[t2], %[t2]\n\t"
      "xorq %[t3], %[t3]\n\t"
      "xorq %[t4], %[t4]\n\t"
      "movq %[b0], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "adoxq %[z], %[t4]\n\t"
      "movq %[t0], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      "movq %[b1], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "adoxq %[z], %[t0]\n\t"
      "movq %[t1], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "adcxq %[z], %[t0]\n\t"
      "movq %[b2], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "adoxq %[z], %[t1]\n\t"
      "movq %[t2], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "adcxq %[z], %[t1]\n\t"
      "movq %[b3], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "adoxq %[z], %[t2]\n\t"
      "movq %[t3], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "adcxq %[z], %[t2]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
      : [a0] "m"(a[0]), [a1] "m"(a[1]), [a2] "m"(a[2]), [a3] "m"(a[3]),
        [b0] "m"(b[0]), [b1] "m"(b[1]), [b2] "m"(b[2]), [b3] "m"(b[3]),
        [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]),
        [inv] "rm"(inv)
      : "rdx", "cc");
  r[0] = t4;
  r[1] = t0;
  r[2] = t1;
  r[3] = t2;
}

// r = a*b*2^(-384) mod p, result in [0, 2p).
// Out of line: it needs 14 registers; inlined into a busy caller GCC finds no allocation.
[[gnu::noinline]] inline void mont_mul_6(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, z;
  __asm__(
      "xorl %k[z], %k[z]\n\t"
      "xorq %[t0], %[t0]\n\t"
      "xorq %[t1], %[t1]\n\t"
      "xorq %[t2], %[t2]\n\t"
      "xorq %[t3], %[t3]\n\t"
      "xorq %[t4], %[t4]\n\t"
      "xorq %[t5], %[t5]\n\t"
      "xorq %[t6], %[t6]\n\t"
      "movq %[b0], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t5]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "adoxq %[z], %[t6]\n\t"
      "movq %[t0], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "adcxq %[z], %[t6]\n\t"
      "movq %[b1], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t5]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t6]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "adoxq %[z], %[t0]\n\t"
      "movq %[t1], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "adcxq %[z], %[t0]\n\t"
      "movq %[b2], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t5]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t6]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "adoxq %[z], %[t1]\n\t"
      "movq %[t2], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "adcxq %[z], %[t1]\n\t"
      "movq %[b3], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t5]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t6]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "adoxq %[z], %[t2]\n\t"
      "movq %[t3], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "adcxq %[z], %[t2]\n\t"
      "movq %[b4], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t4]\n\t"
      "adcxq %[hi], %[t5]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t6]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "adoxq %[z], %[t3]\n\t"
      "movq %[t4], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "adcxq %[z], %[t3]\n\t"
      "movq %[b5], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[a0], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t5]\n\t"
      "adcxq %[hi], %[t6]\n\t"
      "mulxq %[a1], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t6]\n\t"
      "adcxq %[hi], %[t0]\n\t"
      "mulxq %[a2], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t0]\n\t"
      "adcxq %[hi], %[t1]\n\t"
      "mulxq %[a3], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t1]\n\t"
      "adcxq %[hi], %[t2]\n\t"
      "mulxq %[a4], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t2]\n\t"
      "adcxq %[hi], %[t3]\n\t"
      "mulxq %[a5], %[lo], %[hi]\n\t"
      "adoxq %[lo], %[t3]\n\t"
      "adcxq %[hi], %[t4]\n\t"
      "adoxq %[z], %[t4]\n\t"
      "movq %[t5], %%rdx\n\t"
      "imulq %[inv], %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[p0], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq %[p1], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[hi], %[t0]\n\t"
      "mulxq %[p2], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[p3], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[p4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[p5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
      : [a0] "m"(a[0]), [a1] "m"(a[1]), [a2] "m"(a[2]), [a3] "m"(a[3]), [a4] "m"(a[4]), [a5] "m"(a[5]),
        [b0] "m"(b[0]), [b1] "m"(b[1]), [b2] "m"(b[2]), [b3] "m"(b[3]), [b4] "m"(b[4]), [b5] "m"(b[5]),
        [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5]),
        [inv] "rm"(inv)
      : "rdx", "cc");
  r[0] = t6;
  r[1] = t0;
  r[2] = t1;
  r[3] = t2;
  r[4] = t3;
  r[5] = t4;
}

}  // namespace adx
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
